package llmtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aitexteditor/aite/internal/llm/openai"
	"github.com/aitexteditor/aite/internal/textnorm"
)

// EmbedRequest is one request an EmbedServer received.
type EmbedRequest struct {
	N      int
	Model  string
	Inputs []string
	Header http.Header
}

// EmbedServer is a fake OpenAI-compatible embeddings endpoint
// (POST …/embeddings): the vector of each input comes from a function, so
// tests are deterministic. Failures are scripted per request number. It is
// safe for concurrent use and closed when the test ends.
type EmbedServer struct {
	*httptest.Server
	mu    sync.Mutex
	embed func(model, text string) []float32
	fail  func(n int) *Response
	reqs  []EmbedRequest
}

// NewEmbedServer starts a server whose vectors are embed(model, text).
func NewEmbedServer(t testing.TB, embed func(model, text string) []float32) *EmbedServer {
	s := &EmbedServer{embed: embed}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// FailWith makes request n (1-based, counting every request) answer with
// the response fn returns instead, when it returns one: an HTTP error
// (Status, Header such as Retry-After, Body), or Hang to hold the request
// until the client gives up.
func (s *EmbedServer) FailWith(fn func(n int) *Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = fn
}

// Requests returns the requests so far.
func (s *EmbedServer) Requests() []EmbedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]EmbedRequest(nil), s.reqs...)
}

// Inputs counts the texts embedded so far (queries included).
func (s *EmbedServer) Inputs() int {
	n := 0
	for _, r := range s.Requests() {
		n += len(r.Inputs)
	}
	return n
}

// Embedder returns a client pointed at the server, with retries that do
// not sleep. cfg's BaseURL, HTTPClient and (when nil) Sleep are filled in.
func (s *EmbedServer) Embedder(cfg openai.EmbedConfig) *openai.Embedder {
	cfg.BaseURL, cfg.HTTPClient = s.URL+"/v1", s.Client()
	if cfg.Sleep == nil {
		cfg.Sleep = NoSleep
	}
	return openai.NewEmbedder(cfg)
}

func (s *EmbedServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if r.Method != http.MethodPost || json.Unmarshal(body, &req) != nil {
		http.Error(w, `{"error":{"message":"llmtest.EmbedServer: expected a POST of {model, input:[…]}"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	n := len(s.reqs) + 1
	s.reqs = append(s.reqs, EmbedRequest{N: n, Model: req.Model, Inputs: req.Input, Header: r.Header.Clone()})
	fail := s.fail
	s.mu.Unlock()
	if fail != nil {
		if resp := fail(n); resp != nil {
			if resp.Hang {
				<-r.Context().Done()
				return
			}
			for k, vs := range resp.Header {
				w.Header()[k] = vs
			}
			writeError(w, *resp)
			return
		}
	}
	type datum struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Object string  `json:"object"`
		Data   []datum `json:"data"`
		Model  string  `json:"model"`
		Usage  struct {
			PromptTokens int `json:"prompt_tokens"`
			TotalTokens  int `json:"total_tokens"`
		} `json:"usage"`
	}{Object: "list", Model: req.Model}
	for i, in := range req.Input {
		v := s.embed(req.Model, in)
		if v == nil {
			writeError(w, Response{Status: http.StatusNotFound, Body: fmt.Sprintf(`{"error":{"message":"model %q not found"}}`, req.Model)})
			return
		}
		out.Data = append(out.Data, datum{Object: "embedding", Index: i, Embedding: v})
		out.Usage.PromptTokens += len(textnorm.Spans(in))
	}
	out.Usage.TotalTokens = out.Usage.PromptTokens
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// HashEmbedding returns a deterministic embedding of dim dimensions by
// feature hashing: every word of a text is stemmed (textnorm.Stem), a stem
// listed in synonyms is replaced by its group's name, and each resulting
// token adds 1 to the bucket its FNV hash picks; the vector is then scaled
// to length 1. Texts sharing words (in any form) or synonyms are close;
// others are near orthogonal. Keys of synonyms are words (stemmed here).
func HashEmbedding(dim int, synonyms map[string]string) func(text string) []float32 {
	groups := map[string]string{}
	for w, g := range synonyms {
		groups[textnorm.Stem(w)] = g
	}
	return func(text string) []float32 {
		v := make([]float32, dim)
		for _, t := range textnorm.Terms(text) {
			if g, ok := groups[t]; ok {
				t = "=" + g
			}
			h := fnv.New32a()
			_, _ = h.Write([]byte(t))
			v[h.Sum32()%uint32(dim)]++
		}
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if norm > 0 {
			for i := range v {
				v[i] = float32(float64(v[i]) / math.Sqrt(norm))
			}
		}
		return v
	}
}

// EmbedModels serves HashEmbedding for each model name with its own
// dimension (a model the map lacks is answered 404, as servers do).
func EmbedModels(dims map[string]int, synonyms map[string]string) func(model, text string) []float32 {
	embeds := map[string]func(string) []float32{}
	for m, d := range dims {
		embeds[m] = HashEmbedding(d, synonyms)
	}
	return func(model, text string) []float32 {
		if e, ok := embeds[model]; ok {
			return e(text)
		}
		return nil
	}
}
