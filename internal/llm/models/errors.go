package models

import (
	"errors"
	"fmt"
)

// HowToConfigureEmbeddings tells a user how to enable search by meaning.
const HowToConfigureEmbeddings = `To search by meaning, configure an embedding model (any OpenAI-compatible /v1/embeddings):
       export OPENAI_API_KEY=sk-... AITE_EMBED_MODEL=openai:text-embedding-3-small
     or, with a local Ollama (ollama pull nomic-embed-text):
       export AITE_EMBED_MODEL=ollama:nomic-embed-text
     or "embedModel" in aite.json; llama.cpp, vLLM and LM Studio work through their providers
     (AITE_EMBED_MODEL=llamacpp:<model>, vllm:<model>, lmstudio:<model>).
Then 'aite index BOOK.md' builds the book's vector index`

// HowToConfigure tells a user how to configure a model. ErrNoModel carries
// it; commands print it when they need a model and there is none.
const HowToConfigure = `Configure a model in one of these ways:

  1. Environment only (quick start):
       export OPENAI_API_KEY=sk-...            # OpenAI
       export AITE_MODEL=openai:gpt-4o-mini
     or, with a local Ollama (OLLAMA_HOST defaults to http://localhost:11434):
       export AITE_MODEL=ollama:qwen3:8b
     Other providers: openrouter (OPENROUTER_API_KEY), deepseek (DEEPSEEK_API_KEY),
     vllm, lmstudio, llamacpp (AITE_VLLM_BASE_URL, AITE_LMSTUDIO_BASE_URL,
     AITE_LLAMACPP_BASE_URL). OPENAI_BASE_URL points openai at any compatible server.

  2. A config file, ./aite.json (or $XDG_CONFIG_HOME/aite/config.json, or --config):
       {
         "defaultModel": "mini",
         "providers": {
           "openai": {"baseUrl": "https://api.openai.com/v1", "apiKeyEnv": "OPENAI_API_KEY"}
         }
       }
     with models/mini.json next to it:
       {"key": "mini", "provider": "openai", "modelId": "gpt-4o-mini",
        "supportsTools": true, "supportsJSONSchema": true,
        "pricing": {"inputPer1K": 0.00015, "outputPer1K": 0.0006}}

Run 'aite models --check' to see what is configured and whether it answers`

// Sentinel errors; the errors returned by this package wrap them.
var (
	// ErrNoModel: no default model is configured. Its message is
	// HowToConfigure.
	ErrNoModel = errors.New("no model is configured\n\n" + HowToConfigure)
	// ErrNoEmbedModel: no embedding model is configured. Its message says
	// how to configure one.
	ErrNoEmbedModel = errors.New("no embedding model is configured, so search by meaning is off (search by words works as ever)\n\n" + HowToConfigureEmbeddings)
	// ErrUnknownModel: a model key that the registry does not hold.
	ErrUnknownModel = errors.New("unknown model")
	// ErrUnknownProvider: a provider name that is neither configured nor a
	// built-in preset.
	ErrUnknownProvider = errors.New("unknown provider")
	// ErrConfig: the config file is missing (when named explicitly),
	// unreadable or malformed.
	ErrConfig = errors.New("model configuration")
)

// Warning is a problem that did not stop loading: a rejected models file or
// provider, a duplicate key, a bad AITE_MODEL.
type Warning struct {
	File    string `json:"file,omitempty"`  // the file concerned, or "" (environment)
	Field   string `json:"field,omitempty"` // the JSON field or environment variable concerned
	Message string `json:"message"`
}

// String formats the warning as "file: field: message".
func (w Warning) String() string {
	s := w.Message
	if w.Field != "" {
		s = w.Field + ": " + s
	}
	if w.File != "" {
		s = w.File + ": " + s
	}
	return s
}

// warnings collects Warnings.
type warnings []Warning

func (ws *warnings) add(file, field, format string, args ...any) {
	*ws = append(*ws, Warning{File: file, Field: field, Message: fmt.Sprintf(format, args...)})
}
