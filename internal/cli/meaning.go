package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/reading"
)

// Embeddings is the configured embedding model, ready for a session.
type Embeddings struct {
	editor.Embeddings
	Info models.Model
}

// LoadEmbeddings finds the embedding model: spec (a model key or
// provider:model) when given, else AITE_EMBED_MODEL or the config file's
// embedModel. Without one the error wraps models.ErrNoEmbedModel, whose
// message says how to configure one.
func LoadEmbeddings(spec, configPath string) (*Embeddings, error) {
	reg, _, err := models.Load(models.LoadOptions{ConfigPath: configPath})
	if err != nil {
		return nil, reading.Usagef("%v", err)
	}
	e, m, err := reg.Embedder(spec)
	if err != nil {
		return nil, &reading.UsageError{Err: err}
	}
	return &Embeddings{Embeddings: editor.Embeddings{Embedder: e, Model: m.Key}, Info: m}, nil
}

// optionalEmbeddings is LoadEmbeddings for commands that search by meaning
// only when an embedding model is configured: nil when none is.
func optionalEmbeddings(configPath string) *editor.Embeddings {
	e, err := LoadEmbeddings("", configPath)
	if err != nil {
		return nil
	}
	return &e.Embeddings
}

// Enable turns search by meaning on for the book's session.
func (b *Book) Enable(e *Embeddings) {
	if e != nil {
		b.s.SetEmbeddings(&e.Embeddings)
	}
}

// IndexRequest is one `aite index`.
type IndexRequest struct {
	Book     string
	Embed    *Embeddings
	Estimate bool // only say what an update would embed
	Progress bool // draw a progress bar (standard error is a terminal)
	JSON     bool
	Out, Log io.Writer
}

// IndexJSON is the JSON shape of `aite index`.
type IndexJSON struct {
	editor.VectorInfo
	Tokens      int     `json:"estimatedTokens"`
	Cost        float64 `json:"estimatedCost,omitempty"`
	EmbeddedNow int     `json:"embeddedNow"`
}

// estimateEmbedding prices the texts an update would embed.
func estimateEmbedding(info editor.VectorInfo, m models.Model) (tokens int, cost float64) {
	for _, t := range info.Pending {
		tokens += llm.EstimateTokens(t)
	}
	if m.HasPricing() {
		cost = m.Pricing.Cost(llm.Usage{InputTokens: tokens})
	}
	return tokens, cost
}

// costText says what the tokens cost, or that the price is unknown.
func costText(m models.Model, cost float64) string {
	if !m.HasPricing() {
		return "the model's price is unknown (give pricing in its models file)"
	}
	return fmt.Sprintf("≈ %.4f", cost)
}

// Index builds or updates the book's vector index: it says how many items
// it will embed and what that costs, then embeds them in batches with a
// progress bar, and stores the index beside the book.
func Index(ctx context.Context, req IndexRequest) error {
	b, err := Open(req.Book, req.Log)
	if err != nil {
		return err
	}
	defer b.Close()
	b.Enable(req.Embed)
	out, err := b.updateVectors(ctx, req.Embed.Info, req.Log, req.Progress, req.Estimate, req.JSON)
	if err != nil {
		return err
	}
	if req.JSON {
		return reading.WriteJSON(req.Out, out)
	}
	if req.Estimate {
		return nil
	}
	fmt.Fprintf(req.Out, "the vector index of %s holds %d of %d items (%s, %d dimensions)", req.Book, out.Embedded,
		out.Items, out.Model, out.Dim)
	if out.Path != "" {
		fmt.Fprintf(req.Out, ", stored in %s", out.Path)
	}
	fmt.Fprintln(req.Out)
	return nil
}

// updateVectors embeds what the index lacks (with the estimate first) and
// returns the index's state after.
func (b *Book) updateVectors(ctx context.Context, m models.Model, log io.Writer, bar, estimateOnly, quiet bool) (IndexJSON, error) {
	info, err := b.s.VectorStatus(b.id)
	if err != nil {
		return IndexJSON{}, err
	}
	if info.Note != "" && !quiet {
		fmt.Fprintf(log, "aite: note: %s\n", info.Note)
	}
	tokens, cost := estimateEmbedding(info, m)
	out := IndexJSON{VectorInfo: info, Tokens: tokens, Cost: cost}
	if info.Missing == 0 || estimateOnly {
		if !quiet && estimateOnly {
			fmt.Fprintf(log, "%d of %d items need embedding: ≈ %d tokens, %s\n", info.Missing, info.Items, tokens, costText(m, cost))
		}
		return out, nil
	}
	if !quiet {
		fmt.Fprintf(log, "embedding %d of %d items with %s: ≈ %d tokens, %s\n", info.Missing, info.Items, m.Key, tokens, costText(m, cost))
	}
	p := newBar(log, bar && !quiet)
	n, err := b.s.IndexVectors(ctx, b.id, func(done, total int) { p.count(done, total, "items embedded") })
	p.done()
	out.EmbeddedNow = n
	if err != nil {
		if errors.Is(err, editor.ErrIO) {
			return out, &reading.IOError{Err: err}
		}
		return out, fmt.Errorf("embedding stopped after %d items (they are kept; run again to go on): %w", n, err)
	}
	after, err := b.s.VectorStatus(b.id)
	if err == nil {
		out.VectorInfo = after
	}
	return out, nil
}
