package bookprotocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
	"github.com/aitexteditor/aite/internal/agent/protocol"
	"github.com/aitexteditor/aite/internal/codex"
)

// InstancePrefix starts the instance ids of targets: t1, t2, …
const InstancePrefix = "t"

type targetsParams struct {
	Label    string   `json:"label"`
	Pointers []string `json:"pointers"`
}

// createTargets turns a list of pointers into instances (§ 6.3): one
// `state` message {pointer, markdown} per target with `_instance` t1, t2, …,
// and a global write at †state.targets of {label, count, instances,
// warnings?}. Every pointer is checked against the book first: one that
// names nothing fails the call with its reason and nothing is created.
// Pointers naming the same item are kept once (with a warning). The ids go
// on after those of the previous target set (read from the provisioned
// scope †state.targets), so a second set never reuses an instance whose
// state (an old proposal) is still in the context. The set is also stored
// as a session target set under the label, as booktools does.
func (b *binding) createTargets(_ context.Context, call *protocol.Call, _ *protocol.Tool, scoped protocol.Scoped) (protocol.Result, error) {
	var p targetsParams
	if err := args(call, &p); err != nil {
		return protocol.Result{}, err
	}
	label := strings.TrimSpace(p.Label)
	if label == "" {
		return protocol.Result{}, errorf("invalid_arguments", "create_targets needs a label naming the target set")
	}
	if len(p.Pointers) == 0 {
		return protocol.Result{}, errorf("invalid_arguments", "create_targets needs at least one pointer")
	}
	if b.env.Session == nil {
		return protocol.Result{}, errors.New("no book is open for the book tools")
	}
	type target struct {
		id                int
		pointer, markdown string
	}
	var (
		targets  []target
		bad      []string
		warnings []string
		seen     = map[int]string{}
	)
	for _, ptr := range p.Pointers {
		it, err := b.env.Session.Resolve(b.env.Book, ptr)
		if err != nil {
			if e := domainError(err); !isModelError(e) {
				return protocol.Result{}, e
			}
			bad = append(bad, fmt.Sprintf("%q (%v)", ptr, err))
			continue
		}
		if first, dup := seen[it.ID]; dup {
			warnings = append(warnings, fmt.Sprintf("%s names the same item as %s; kept once", ptr, first))
			continue
		}
		seen[it.ID] = ptr
		targets = append(targets, target{it.ID, it.Pointer.String(), it.Markdown})
	}
	if len(bad) > 0 {
		return protocol.Result{}, errorf("not_found", "create_targets created nothing: %d of %d pointers name no item: %s",
			len(bad), len(p.Pointers), strings.Join(bad, "; "))
	}
	ptrs := make([]string, len(targets))
	for i, t := range targets {
		ptrs[i] = t.pointer
	}
	if _, err := b.env.Session.CreateTargets(b.env.Book, label, ptrs); err != nil {
		return protocol.Result{}, domainError(err)
	}
	first := nextInstance(scoped)
	msgs := make([]agentctx.Message, 0, len(targets)+1)
	ids := make([]any, len(targets))
	for i, t := range targets {
		id := InstancePrefix + strconv.Itoa(first+i)
		ids[i] = id
		msgs = append(msgs, agentctx.Message{Type: agentctx.TypeState, Kind: "state", Instance: id, HasValue: true,
			Value: agentctx.NewObject("pointer", t.pointer, "markdown", t.markdown)})
		cards, err := b.targetCards(t.id, id)
		if err != nil {
			return protocol.Result{}, err
		}
		msgs = append(msgs, cards...)
	}
	summary := agentctx.NewObject("label", label, "count", json.Number(strconv.Itoa(len(targets))), "instances", ids)
	if len(warnings) > 0 {
		ws := make([]any, len(warnings))
		for i, w := range warnings {
			ws[i] = w
		}
		summary.Set("warnings", ws)
	}
	msgs = append(msgs, agentctx.Message{Type: agentctx.TypeState, Kind: "state", HasValue: true, Path: "targets",
		OutputMethod: agentctx.MethodSet, Value: summary})
	return protocol.Result{Messages: msgs}, nil
}

// targetCards returns the codex entries a target's item names as data
// messages of kinds characters and glossary in the target's instance:
// {name: text}, the text being the description, the other names and the
// facts known at that item with their evidence. An instance's view merges
// them over the book's cards, so a paragraph editor given the scopes
// characters and glossary sees what holds at its paragraph and nothing
// later. No entries: no message.
func (b *binding) targetCards(itemID int, instance string) ([]agentctx.Message, error) {
	cx, err := b.env.Session.CodexContext(b.env.Book, []int{itemID})
	if err != nil {
		return nil, domainError(err)
	}
	chars, gloss := &agentctx.Object{}, &agentctx.Object{}
	for _, e := range cx {
		text := e.Description
		if len(e.Aliases) > 0 {
			text = strings.TrimSpace(text + " (also: " + strings.Join(e.Aliases, ", ") + ")")
		}
		if len(e.Facts) > 0 {
			text = strings.TrimSpace(text + " Known here: " + strings.Join(e.Facts, "; ") + ".")
		}
		if e.Kind == codex.Character {
			chars.Set(e.Name, text)
		} else {
			gloss.Set(e.Name, strings.TrimSpace(string(e.Kind)+": "+text))
		}
	}
	var out []agentctx.Message
	for _, c := range []struct {
		kind string
		v    *agentctx.Object
	}{{KindCharacters, chars}, {KindGlossary, gloss}} {
		if c.v.Len() > 0 {
			out = append(out, agentctx.Message{Type: agentctx.TypeData, Kind: c.kind, Instance: instance, HasValue: true, Value: c.v,
				Description: "The codex entries this target's item names, with the facts known at it."})
		}
	}
	return out, nil
}

// nextInstance returns the number after the highest tN of the previous
// target set in the scoped †state.targets (1 when there is none).
func nextInstance(scoped protocol.Scoped) int {
	if scoped == nil {
		return 1
	}
	raw, ok := scoped.Kind("state")
	if !ok {
		return 1
	}
	var st struct {
		Targets struct {
			Instances []string `json:"instances"`
		} `json:"targets"`
	}
	if json.Unmarshal(raw, &st) != nil {
		return 1
	}
	next := 1
	for _, id := range st.Targets.Instances {
		if n, err := strconv.Atoi(strings.TrimPrefix(id, InstancePrefix)); err == nil && strings.HasPrefix(id, InstancePrefix) && n >= next {
			next = n + 1
		}
	}
	return next
}

// isModelError reports whether err is a failure the model can act on.
func isModelError(err error) bool {
	var e *Error
	return errors.As(err, &e)
}
