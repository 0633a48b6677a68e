// Package models is the model registry: which LLM endpoints (providers) and
// which models aite may use, loaded once from a config file, a directory of
// model files and the environment.
//
// # Sources
//
// The config file is the first found of: LoadOptions.ConfigPath (an error if
// it is missing), $AITE_CONFIG (likewise), ./aite.json in the working
// directory, $XDG_CONFIG_HOME/aite/config.json (or ~/.config/aite/config.json).
// Without one, aite runs from the environment alone. The file may hold other
// sections (the server's); only these are read:
//
//	{
//	  "defaultModel": "gpt4o-mini",
//	  "modelsDir": "models",
//	  "providers": {
//	    "openai": {"baseUrl": "https://api.openai.com/v1", "apiKeyEnv": "OPENAI_API_KEY"},
//	    "gateway": {"baseUrl": "https://llm.example.com", "apiKeyEnv": "GATEWAY_KEY",
//	      "headers": {"X-Team": "books"}, "protocol": "NEWAPI_OPENAI_COMPATIBLE",
//	      "newApiPath": "/api/chat/completions", "thinkingParam": "enable_thinking"}
//	  }
//	}
//
// modelsDir (also "dirs": {"models": …}, or $AITE_MODELS_DIR) is relative to
// the config file; it defaults to "models" next to the config file, or in
// the working directory when there is none. Each models/<key>.json describes
// one model (see [Model]); a bad file is skipped with a [Warning] naming the
// file and field, and never stops the others from loading. Of two files with
// the same key the first in name order wins.
//
// # Providers
//
// Built-in presets exist for openai, anthropic, ollama, openrouter,
// deepseek, vllm, lmstudio and llamacpp (see [Presets]). anthropic speaks
// Anthropic's Messages API (protocol ANTHROPIC, the adapter of
// internal/llm/anthropic; ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL), so
// AITE_MODEL=anthropic:claude-sonnet-4-5 works like any other; every other
// preset is OpenAI-compatible. A provider of the config file with a
// preset's name overrides it field by field: a non-empty baseUrl replaces
// the preset's, and apiKey/apiKeyEnv replace the preset's key source as a
// pair. For every provider, AITE_PROVIDER_<KEY>_API_KEY and
// AITE_PROVIDER_<KEY>_BASE_URL (KEY upper-cased, '-' → '_') beat both. The
// key itself comes from, in order: that override, the variable named by
// apiKeyEnv, the literal apiKey (discouraged). Keys are never logged or
// printed: use [Mask] and [ReplaceAttr].
//
// # Quick start from the environment
//
// AITE_MODEL picks the default model: a model key, or provider:model split
// at the first colon (ollama:qwen3:8b is provider ollama, model qwen3:8b), or
// a bare provider name whose defaultModel is set. A provider:model that no
// models file describes becomes a model of its own (key = the whole value,
// Source "env") with conservative capabilities: tools on, JSON Schema output
// only for the openai provider (whose API enforces response_format
// json_schema; other servers vary), no reasoning, no token limits, no
// pricing. A models file with the same provider and modelId, or with the
// value as its key, supplies the capabilities instead.
//
// # Use
//
// [Registry.Provider] builds the adapter of a model's provider (the
// OpenAI-compatible one, or Anthropic's for protocol ANTHROPIC; cached per
// provider and protocol) and wraps it so that every
// usage event carries the cost from the model's pricing, and so that the
// provider declares native JSON Schema output exactly when the model does.
// The adapters never retry on their own: the one retry rule of a model call
// is llm.Reconnect, applied by the agent runtime to its calls and by
// llm.Reconnecting to the calls made outside it, so the command line and
// the server send a failing provider the same two requests.
// [Registry.Check] probes a provider with GET <baseURL>/models (with
// x-api-key for Anthropic).
package models
