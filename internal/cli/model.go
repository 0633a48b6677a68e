package cli

import (
	"errors"

	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/reading"
)

// Model is a configured model ready to call.
type Model struct {
	Provider llm.Provider
	Info     models.Model
	reg      *models.Registry // the registry it came from (other model keys of an agent), nil when built by hand
	// Embed is the configured embedding model (nil when none): the book
	// tools then search by meaning too.
	Embed *editor.Embeddings
}

// LoadModel finds the model to use: spec (a model key or provider:model)
// when given, else the configured default. Without one the error says how
// to configure a model.
func LoadModel(spec, configPath string) (Model, error) {
	reg, _, err := models.Load(models.LoadOptions{ConfigPath: configPath})
	if err != nil {
		return Model{}, reading.Usagef("%v", err)
	}
	if spec == "" {
		m, err := reg.Default()
		if err != nil {
			if errors.Is(err, models.ErrNoModel) {
				return Model{}, &reading.UsageError{Err: err}
			}
			return Model{}, reading.Usagef("%v", err)
		}
		spec = m.Key
	}
	p, info, err := reg.Provider(spec)
	if err != nil {
		return Model{}, reading.Usagef("%v", err)
	}
	m := Model{Provider: p, Info: info, reg: reg}
	if e, _, err := reg.Embedder(""); err == nil {
		m.Embed = &editor.Embeddings{Embedder: e, Model: embedKey(reg)}
	}
	return m, nil
}

// CursorAgent returns a cursor agent over the book's session using m.
func (m Model) CursorAgent(b *Book) *cursoragent.Agent {
	return &cursoragent.Agent{Provider: m.Provider, Model: m.Info.ModelID, Session: b.Session(),
		JSONSchema: m.Info.SupportsJSONSchema}
}

// embedKey is the configured embedding model's key.
func embedKey(reg *models.Registry) string {
	spec, _ := reg.EmbedSpec()
	if m, err := reg.Resolve(spec); err == nil {
		return m.Key
	}
	return spec
}
