package cli

import (
	"errors"

	"github.com/aitexteditor/aite/internal/cursoragent"
	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/models"
)

// Model is a configured model ready to call.
type Model struct {
	Provider llm.Provider
	Info     models.Model
	reg      *models.Registry // the registry it came from (other model keys of an agent), nil when built by hand
}

// LoadModel finds the model to use: spec (a model key or provider:model)
// when given, else the configured default. Without one the error says how
// to configure a model.
func LoadModel(spec, configPath string) (Model, error) {
	reg, _, err := models.Load(models.LoadOptions{ConfigPath: configPath})
	if err != nil {
		return Model{}, Usagef("%v", err)
	}
	if spec == "" {
		m, err := reg.Default()
		if err != nil {
			if errors.Is(err, models.ErrNoModel) {
				return Model{}, &UsageError{Err: err}
			}
			return Model{}, Usagef("%v", err)
		}
		spec = m.Key
	}
	p, info, err := reg.Provider(spec)
	if err != nil {
		return Model{}, Usagef("%v", err)
	}
	return Model{Provider: p, Info: info, reg: reg}, nil
}

// CursorAgent returns a cursor agent over the book's session using m.
func (m Model) CursorAgent(b *Book) *cursoragent.Agent {
	return &cursoragent.Agent{Provider: m.Provider, Model: m.Info.ModelID, Session: b.Session(),
		JSONSchema: m.Info.SupportsJSONSchema}
}
