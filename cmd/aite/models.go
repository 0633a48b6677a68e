package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/aitexteditor/aite/internal/llm"
	"github.com/aitexteditor/aite/internal/llm/models"
	"github.com/aitexteditor/aite/internal/reading"
)

type modelsFlags struct {
	check  bool
	config string
}

func newModelsCmd(o *options) *cobra.Command {
	f := &modelsFlags{}
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List the configured models and providers; --check probes them",
		Long: helpText(`List the models aite can use (key, provider, model id, capabilities,
token limits, price per 1K tokens, where each is defined; * marks the
default) and the providers they use (base URL and whether the API key is
set; the key itself is never shown).

Models come from the environment (AITE_MODEL=provider:model, e.g.
openai:gpt-4o-mini or ollama:qwen3:8b, with OPENAI_API_KEY,
OPENAI_BASE_URL, OLLAMA_HOST, ...) and from a config file: --config,
$AITE_CONFIG, ./aite.json or $XDG_CONFIG_HOME/aite/config.json, with
model files in models/<key>.json next to it.

--check asks each listed provider for its model list (GET <base>/models,
5 s timeout) and prints ok, unreachable, timeout or auth error with the
reason. The exit status is 1 when a check fails, when the default model is
misconfigured, or when no model is configured at all (then the text says
how to configure one).

JSON: {"config", "modelsDir", "default", "defaultFrom", "defaultError",
"models": [{"key", "provider", "modelId", "protocol", "isReasoner",
"supportsTools", "supportsJSONSchema", "maxInputTokens", "maxOutputTokens",
"pricing": {"inputPer1K", "cachedInputPer1K", "outputPer1K"}, "source",
"default"}], "providers": [{"key", "baseUrl", "protocol", "keyStatus",
"keySet", "keyEnv", "headers", "defaultModel", "source", "problem",
"check": {"ok", "status", "error"}}], "warnings": [{"file", "field",
"message"}]}`),
		Example: `  AITE_MODEL=ollama:qwen3:8b aite models --check
  aite models --config ~/books/aite.json
  aite models --json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runModels(cmd, o, f) },
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.check, "check", false, "probe every listed provider (GET <base>/models) and report its state")
	fl.StringVar(&f.config, "config", "", "read this config file instead of searching for one")
	return cmd
}

// modelsReport is the JSON shape of `aite models`.
type modelsReport struct {
	Config       string           `json:"config"`
	ModelsDir    string           `json:"modelsDir"`
	Default      string           `json:"default,omitempty"`
	DefaultFrom  string           `json:"defaultFrom,omitempty"`
	DefaultError string           `json:"defaultError,omitempty"`
	Models       []modelEntry     `json:"models"`
	Providers    []providerEntry  `json:"providers"`
	Warnings     []models.Warning `json:"warnings"`
}

type modelEntry struct {
	models.Model
	Default bool `json:"default"`
}

type providerEntry struct {
	models.ProviderInfo
	Check *checkResult `json:"check,omitempty"`
}

// checkResult is the outcome of probing one provider.
type checkResult struct {
	OK     bool   `json:"ok"`
	Status string `json:"status"` // ok, unreachable, timeout, auth error, error
	Error  string `json:"error,omitempty"`
}

func runModels(cmd *cobra.Command, o *options, f *modelsFlags) error {
	reg, warns, err := models.Load(models.LoadOptions{ConfigPath: f.config})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return &reading.IOError{Err: err}
		}
		return err
	}
	rep := buildReport(reg, warns)
	if f.check {
		checkProviders(cmd.Context(), reg, rep.Providers)
	}
	if o.json {
		if err := reading.WriteJSON(cmd.OutOrStdout(), rep); err != nil {
			return err
		}
	} else {
		for _, w := range warns {
			fmt.Fprintf(cmd.ErrOrStderr(), "aite: warning: %s\n", w)
		}
		if err := writeModels(cmd.OutOrStdout(), rep); err != nil {
			return &reading.IOError{Err: fmt.Errorf("write output: %w", err)}
		}
	}
	return modelsOutcome(reg, rep)
}

// buildReport collects what the registry holds.
func buildReport(reg *models.Registry, warns []models.Warning) modelsReport {
	rep := modelsReport{Config: reg.ConfigPath(), ModelsDir: reg.ModelsDir(), Warnings: warns,
		Models: []modelEntry{}, Providers: []providerEntry{}}
	if rep.Warnings == nil {
		rep.Warnings = []models.Warning{}
	}
	def, defErr := reg.Default()
	_, rep.DefaultFrom = reg.DefaultSpec()
	switch {
	case defErr == nil:
		rep.Default = def.Key
	case !errors.Is(defErr, models.ErrNoModel):
		rep.DefaultError = defErr.Error()
	}
	for _, m := range reg.Models() {
		rep.Models = append(rep.Models, modelEntry{Model: m, Default: defErr == nil && m.Key == def.Key})
	}
	for _, p := range reg.Providers() {
		rep.Providers = append(rep.Providers, providerEntry{ProviderInfo: p})
	}
	return rep
}

// checkProviders probes the providers concurrently.
func checkProviders(ctx context.Context, reg *models.Registry, ps []providerEntry) {
	if ctx == nil {
		ctx = context.Background()
	}
	var wg sync.WaitGroup
	for i := range ps {
		wg.Go(func() { ps[i].Check = describeCheck(reg.Check(ctx, ps[i].Key)) })
	}
	wg.Wait()
}

// describeCheck turns a Check error into a result.
func describeCheck(err error) *checkResult {
	if err == nil {
		return &checkResult{OK: true, Status: "ok"}
	}
	res := &checkResult{Status: "error", Error: err.Error()}
	var le *llm.Error
	if errors.As(err, &le) {
		res.Error = le.Message
		switch le.Kind {
		case llm.Auth:
			res.Status = "auth error"
		case llm.Network:
			res.Status = "unreachable"
		case llm.Timeout:
			res.Status = "timeout"
		}
	}
	return res
}

// modelsOutcome is the command's error: a failed check, a broken default,
// or nothing configured.
func modelsOutcome(reg *models.Registry, rep modelsReport) error {
	failed := 0
	for _, p := range rep.Providers {
		if p.Check != nil && !p.Check.OK {
			failed++
		}
	}
	_, defErr := reg.Default()
	switch {
	case len(rep.Models) == 0:
		return models.ErrNoModel
	case failed > 0:
		return fmt.Errorf("%d of %d providers failed the check", failed, len(rep.Providers))
	case defErr != nil && !errors.Is(defErr, models.ErrNoModel):
		return defErr
	}
	return nil
}

// writeModels prints the report as text.
func writeModels(w io.Writer, rep modelsReport) error {
	var b strings.Builder
	b.WriteString("Models:\n")
	if len(rep.Models) == 0 {
		b.WriteString("  none\n")
	} else {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "    KEY\tPROVIDER\tMODEL ID\tCAPABILITIES\tTOKENS IN/OUT\tPRICE PER 1K IN/OUT\tSOURCE")
		for _, m := range rep.Models {
			mark := " "
			if m.Default {
				mark = "*"
			}
			fmt.Fprintf(tw, "  %s %s\t%s\t%s\t%s\t%s\t%s\t%s\n", mark, m.Key, m.Provider, m.ModelID,
				capabilities(m.Model), tokens(m.Model), prices(m.Model), m.Source)
		}
		_ = tw.Flush()
	}
	b.WriteString(defaultLine(rep))
	b.WriteString("\nProviders:\n")
	if len(rep.Providers) == 0 {
		b.WriteString("  none\n")
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, p := range rep.Providers {
		fmt.Fprintf(tw, "  %s\t%s\tkey: %s\t%s%s\n", p.Key, p.BaseURL, p.KeyStatus, p.Source, providerNote(p))
	}
	_ = tw.Flush()
	b.WriteString("\nConfig: ")
	if rep.Config == "" {
		b.WriteString("none (environment only)")
	} else {
		b.WriteString(rep.Config)
	}
	b.WriteString("; models dir: " + rep.ModelsDir + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func defaultLine(rep modelsReport) string {
	switch {
	case rep.Default != "":
		return "  default: " + rep.Default + " (" + rep.DefaultFrom + ")\n"
	case rep.DefaultError != "":
		return "  default: error: " + rep.DefaultError + "\n"
	}
	return "  default: none (set AITE_MODEL or defaultModel in the config file)\n"
}

// providerNote is the problem and check columns of a provider line.
func providerNote(p providerEntry) string {
	var s string
	if p.Problem != "" {
		s += "\tproblem: " + p.Problem
	}
	if c := p.Check; c != nil {
		s += "\t" + c.Status
		if c.Error != "" {
			s += ": " + c.Error
		}
	}
	return s
}

func capabilities(m models.Model) string {
	var caps []string
	if m.SupportsTools {
		caps = append(caps, "tools")
	}
	if m.SupportsJSONSchema {
		caps = append(caps, "json-schema")
	}
	if m.IsReasoner {
		caps = append(caps, "reasoner")
	}
	if len(caps) == 0 {
		return "-"
	}
	return strings.Join(caps, ",")
}

func tokens(m models.Model) string {
	n := func(v int) string {
		if v == 0 {
			return "?"
		}
		return strconv.Itoa(v)
	}
	return n(m.MaxInputTokens) + "/" + n(m.MaxOutputTokens)
}

func prices(m models.Model) string {
	if !m.HasPricing() {
		return "unknown"
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return f(m.Pricing.InputPer1K) + "/" + f(m.Pricing.OutputPer1K)
}
