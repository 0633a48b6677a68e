package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/aitexteditor/aite/internal/editor"
	"github.com/aitexteditor/aite/internal/textdiff"
)

// ChatHelp lists the chat commands.
const ChatHelp = `Type a command for the book and press Enter. Slash commands:
  /diff   show the edits not yet written
  /save   write the edits to the book (with a backup; aite undo restores it)
  /undo   take back the edits of the last turn
  /quit   leave (asks before dropping unsaved edits)
  /help   this text`

// Chat is an interactive session over a book: each line is a command for
// the agent, which sees the previous turns (the runs of one chat).
func Chat(ctx context.Context, req AskRequest) error {
	b, err := Open(req.Book, req.Log)
	if err != nil {
		return err
	}
	defer b.Close()
	term := newTerminal(req.In, req.Log, req.Interactive, false)
	s, err := newAgentSession(b, req, term)
	if err != nil {
		return err
	}
	defer s.close()
	fmt.Fprintf(req.Log, "aite chat on %s with %s (agent %s). /help lists the commands.\n", req.Book, req.Model.Info.Key, s.agent.Key)
	c := &chat{b: b, req: req, term: term, s: s}
	return c.loop(ctx)
}

type chat struct {
	b        *Book
	req      AskRequest
	term     *terminal
	s        *agentSession
	note     string // what the next turn's message says first (an /undo)
	lastEdit int    // edits made by the last turn
	quitting bool
}

func (c *chat) loop(ctx context.Context) error {
	for {
		fmt.Fprint(c.req.Log, "› ")
		line, ok := c.term.line(ctx)
		if !ok {
			fmt.Fprintln(c.req.Log)
			return c.leave()
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "/") {
			if done, err := c.slash(line); done || err != nil {
				return err
			}
			continue
		}
		c.quitting = false
		if err := c.turn(ctx, line); err != nil {
			if ctx.Err() != nil {
				return err
			}
			fmt.Fprintf(c.req.Log, "(the turn failed: %v)\n", err)
		}
	}
}

// turn runs the agent on one line; the chat's memory holds the earlier
// turns.
func (c *chat) turn(ctx context.Context, line string) error {
	before := c.b.unsavedEdits()
	if c.note != "" {
		line, c.note = c.note+"\n\n"+line, ""
	}
	evs, err := c.s.run(ctx, line, NewPrinter(c.req.Out, c.req.Log))
	c.lastEdit = c.b.unsavedEdits() - before
	if out := askOutcome(evs); out.OutOfSteps {
		fmt.Fprintln(c.req.Log, "(the model ran out of steps before it finished: its work may be unfinished; /undo takes its edits back)")
	}
	fmt.Fprintln(c.req.Out)
	if c.lastEdit > 0 {
		fmt.Fprintf(c.req.Log, "(%d edit(s) in memory; /diff to see them, /save to write them)\n", c.b.unsavedEdits())
	}
	return err
}

// slash runs a slash command; done means leave.
func (c *chat) slash(line string) (bool, error) {
	switch strings.Fields(line)[0] {
	case "/quit", "/exit":
		if c.b.unsavedEdits() > 0 && !c.quitting {
			c.quitting = true
			fmt.Fprintf(c.req.Log, "%d edit(s) are not written: /save them, or /quit again to drop them\n", c.b.unsavedEdits())
			return false, nil
		}
		return true, nil
	case "/save":
		return false, c.save()
	case "/undo":
		c.undo()
	case "/diff":
		d, _ := c.b.s.Diff(c.b.id)
		d = textdiff.Trim(d, c.req.Context)
		if d == "" {
			d = "(no unsaved edits)\n"
		}
		fmt.Fprint(c.req.Out, d)
	case "/help":
		fmt.Fprintln(c.req.Log, ChatHelp)
	default:
		fmt.Fprintf(c.req.Log, "unknown command %s\n%s\n", line, ChatHelp)
	}
	return false, nil
}

func (c *chat) save() error {
	if c.b.unsavedEdits() == 0 {
		fmt.Fprintln(c.req.Log, "nothing to write")
		return nil
	}
	res, err := c.b.s.Save(c.b.id, editor.SaveOptions{Backup: true, Record: "aite chat", ForceReadOnly: c.req.Force})
	if err != nil {
		fmt.Fprintf(c.req.Log, "aite: %v\n", writeError(c.req.Book, err))
		return nil // the edits stay in memory: the user can make the book writable and /save again
	}
	fmt.Fprintf(c.req.Log, "wrote %s (backup %s)\n", res.Path, res.Backup)
	return nil
}

func (c *chat) undo() {
	if c.lastEdit <= 0 {
		fmt.Fprintln(c.req.Log, "the last turn made no edits to take back")
		return
	}
	done, err := c.b.s.Undo(c.b.id, c.lastEdit)
	for _, e := range done {
		fmt.Fprintf(c.req.Log, "  ↶ %s %s\n", e.Op, e.Pointer)
	}
	if err != nil {
		fmt.Fprintf(c.req.Log, "undo stopped: %v\n", err)
	}
	c.lastEdit -= len(done)
	c.note = fmt.Sprintf("(The user took back your last %d edit(s); the book is as it was before them.)", len(done))
}

func (c *chat) leave() error {
	if n := c.b.unsavedEdits(); n > 0 {
		fmt.Fprintf(c.req.Log, "%d edit(s) were not written\n", n)
	}
	return nil
}
