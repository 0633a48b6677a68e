// Command fakemodel serves the evaltest oracle as a fake OpenAI-compatible
// endpoint, to try `aite eval` by hand without a model:
//
//	go run ./internal/eval/evaltest/fakemodel -addr 127.0.0.1:8787 -tasks 3 BOOK.md [BOOK.md …]
//	AITE_MODEL=openai:fake OPENAI_BASE_URL=http://127.0.0.1:8787/v1 OPENAI_API_KEY=x aite eval BOOK.md --tasks 3
//
// It generates the plans of the books exactly as `aite eval` does (the same
// -seed, -tasks, -families and -relay-pairs must be given to both) and
// answers as the oracle of -behaviour: perfect, wrong or broken. It
// reports usage (llm.EstimateTokens of each request and reply) unless
// -usage=false. It stops on SIGINT or SIGTERM.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/eval"
	"github.com/aitexteditor/aite/internal/eval/evaltest"
	"github.com/aitexteditor/aite/internal/llm/llmtest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:8787", "listen address")
	behaviour := flag.String("behaviour", "perfect", "perfect, wrong or broken")
	seed := flag.Uint64("seed", 1, "the seed given to aite eval")
	tasks := flag.Int("tasks", eval.DefaultPerFamily, "the --tasks given to aite eval")
	pairs := flag.Int("relay-pairs", eval.DefaultRelayPairs, "the --relay-pairs given to aite eval")
	families := flag.String("families", "all", "the --families given to aite eval")
	usage := flag.Bool("usage", true, "report token usage with every reply")
	flag.Parse()
	fams, err := eval.ParseFamilies(*families)
	if err != nil {
		return err
	}
	opt := eval.Options{Seed: *seed, PerFamily: *tasks, RelayPairs: *pairs, Families: fams}
	var plans []*eval.Plan
	for _, path := range flag.Args() {
		p, err := plan(path, opt)
		if err != nil {
			return err
		}
		plans = append(plans, p)
	}
	if len(plans) == 0 {
		return fmt.Errorf("name at least one book")
	}
	o := evaltest.New(evaltest.Behaviour(*behaviour), plans...)
	o.ReportUsage = *usage
	srv, err := llmtest.Listen(*addr, o.Handler())
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Printf("fakemodel (%s, %d books) on %s/v1\n", *behaviour, len(plans), srv.URL)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	return nil
}

// plan generates a book's plan as aite eval does: with the item IDs
// recorded beside the book.
func plan(path string, opt eval.Options) (*eval.Plan, error) {
	s := editor.New()
	if _, err := s.Open(path); err != nil {
		return nil, err
	}
	src, err := s.Source(path)
	if err != nil {
		return nil, err
	}
	ids, next, err := s.ItemIDs(path)
	if err != nil {
		return nil, err
	}
	b, err := eval.NewBook(filepath.Base(path), src, ids, next)
	if err != nil {
		return nil, err
	}
	return eval.Generate(b, opt)
}
