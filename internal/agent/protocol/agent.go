package protocol

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aitexteditor/aite/internal/agent/agentctx"
)

// Defaults of a protocol agent (§4.4, §4.8, §5.1).
const (
	DefaultMaxTurns         = 16
	DefaultMaxParallel      = 4
	DefaultMaxDelegateDepth = 3
	DefaultRepairRetries    = 1
	DefaultErrorWindow      = 20
	DefaultApprovalTimeout  = 300 * time.Second
)

// Unpathed result policies (§1.6).
const (
	UnpathedLog  = "log"
	UnpathedDrop = "drop"
)

// Approval policies of requested scopes (§4.4 AP3).
const (
	ApprovalAsk  = "ask"
	ApprovalAuto = "auto"
	ApprovalDeny = "deny"
)

// Guard policies when a call has no votes (§3.2).
const (
	OnNoVotesAllow = "allow"
	OnNoVotesDeny  = "deny"
)

// Normalize applies the defaults of §5.1 and checks what can be checked
// without a registry (advisor folding and on conflicts, answer schemas, tool
// file kinds, provisioned scopes). Errors are load errors; all problems found
// are joined in one error. Run it once per definition: a negative
// RepairRetries becomes 0, which a second call would read as unset (1).
func (a *Agent) Normalize() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if a.cache == nil {
		a.cache = newComposeCache()
	}

	a.normalizeLimits(bad)
	switch a.ResponseFormat {
	case "":
		a.ResponseFormat = FormatAuto
	case FormatAuto, FormatJSONSchema, FormatRespondTool, FormatPrompt:
	default:
		bad("unknown responseFormat %q", a.ResponseFormat)
	}
	switch {
	case a.ReasoningOff:
		a.ReasoningField = ""
	case a.ReasoningField == "":
		a.ReasoningField = DefaultReasoningField
	case a.ReasoningField != DefaultReasoningField && a.ReasoningField != metaWhy:
		bad("reasoningField must be %q, %q or empty, not %q", DefaultReasoningField, metaWhy, a.ReasoningField)
	}
	switch {
	case a.RepairRetries == 0:
		a.RepairRetries = DefaultRepairRetries
	case a.RepairRetries < 0:
		a.RepairRetries = 0
	}
	switch {
	case a.ErrorWindow == 0:
		a.ErrorWindow = DefaultErrorWindow
	case a.ErrorWindow < 0:
		bad("errorWindow must not be negative")
	}
	switch a.UnpathedResults {
	case "":
		a.UnpathedResults = UnpathedLog
	case UnpathedLog, UnpathedDrop:
	default:
		bad("unpathedResults must be %q or %q, not %q", UnpathedLog, UnpathedDrop, a.UnpathedResults)
	}
	a.normalizeApproval(bad)

	for _, d := range a.Tools {
		if _, err := parseDecl(d); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, a.checkAdvisors()...)
	if a.OutputSchema != nil {
		s, err := orderedSchema(a.OutputSchema, "outputSchema")
		if err != nil {
			errs = append(errs, err)
		} else {
			a.OutputSchema = s
		}
	}
	if a.InputSchema != nil {
		s, err := orderedSchema(a.InputSchema, "inputSchema")
		if err != nil {
			errs = append(errs, err)
		} else {
			a.InputSchema = s
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("protocol agent %q: %w", a.Key, errors.Join(errs...))
	}
	return nil
}

func (a *Agent) normalizeLimits(bad func(string, ...any)) {
	l := &a.Limits
	if l.MaxTurns < 0 || l.MaxParallel < 0 || l.MaxDelegateDepth < 0 || l.MaxModelCalls < 0 || l.MaxToolCalls < 0 || l.RunTimeout < 0 {
		bad("limits must not be negative")
	}
	if l.MaxTurns == 0 {
		switch {
		case !a.Oneshot:
			l.MaxTurns = DefaultMaxTurns
		case len(a.Tools) > 0 || a.hasOnDemandAdvisor():
			l.MaxTurns = 2
		default:
			l.MaxTurns = 1
		}
	}
	if l.MaxParallel == 0 {
		l.MaxParallel = DefaultMaxParallel
	}
	if l.MaxDelegateDepth == 0 {
		l.MaxDelegateDepth = DefaultMaxDelegateDepth
	}
}

func (a *Agent) normalizeApproval(bad func(string, ...any)) {
	switch a.Approval.RequestedScopes {
	case "":
		a.Approval.RequestedScopes = ApprovalAsk
	case ApprovalAsk, ApprovalAuto, ApprovalDeny:
	default:
		bad("approval.requestedScopes must be ask, auto or deny, not %q", a.Approval.RequestedScopes)
	}
	switch {
	case a.Approval.Timeout == 0:
		a.Approval.Timeout = DefaultApprovalTimeout
	case a.Approval.Timeout < 0:
		bad("approval.timeoutMs must not be negative")
	}
	switch a.Approval.Calls {
	case "":
		a.Approval.Calls = CallsAsk
	case CallsAsk, CallsAuto:
	default:
		bad("approval.calls must be ask or auto, not %q", a.Approval.Calls)
	}
	a.normalizeConfirmTools(bad)
	g := a.Guard
	if g == nil {
		return
	}
	switch g.OnNoVotes {
	case "":
		g.OnNoVotes = OnNoVotesAllow
	case OnNoVotesAllow, OnNoVotesDeny:
	default:
		bad("guard.onNoVotes must be allow or deny, not %q", g.OnNoVotes)
	}
	if g.DisagreementSpread == 0 {
		g.DisagreementSpread = DefaultDisagreementSpread
	}
	if g.MinMeanWeight < 0 || g.MinMeanWeight > 100 || g.DisagreementSpread < 0 || g.DisagreementSpread > 100 {
		bad("guard weights must lie in 0..100")
	}
}

// normalizeConfirmTools drops duplicate confirm tools and rejects names
// that can never be confirmed: blank ones, ConsultAdvisor and declared
// latent tools (their calls are answered by the model and never dispatched).
func (a *Agent) normalizeConfirmTools(bad func(string, ...any)) {
	var tools []string
	for _, name := range a.ConfirmTools {
		switch {
		case name == "":
			bad("approval.confirmTools holds a blank tool name")
			continue
		case name == ConsultAdvisor:
			bad("approval.confirmTools cannot hold %s", ConsultAdvisor)
			continue
		}
		for _, d := range a.Tools {
			if d.Name == name && d.FileKind == "latent" {
				bad("approval.confirmTools: %q is a latent tool; its calls are never dispatched and cannot be confirmed", name)
			}
		}
		if !slices.Contains(tools, name) {
			tools = append(tools, name)
		}
	}
	a.ConfirmTools = tools
}

// hasOnDemandAdvisor reports whether an agent advisor has no `on` (it makes
// ConsultAdvisor a tool).
func (a *Agent) hasOnDemandAdvisor() bool {
	folded, _ := agentctx.Context(a.Advisors).Advisors()
	for _, ad := range folded {
		if ad.On == "" {
			return true
		}
	}
	return false
}

// checkAdvisors folds the agent's own advisors: an `on` conflict is a load
// error here (§5.1, A3 a), as are bad `on` values and answer schemas.
func (a *Agent) checkAdvisors() []error {
	var errs []error
	for i, m := range a.Advisors {
		if m.Type != agentctx.TypeAdvisor || m.Advisor == nil {
			errs = append(errs, fmt.Errorf("advisors[%d] is not an advisor message", i))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	folded, ferrs := agentctx.Context(a.Advisors).Advisors()
	errs = append(errs, ferrs...)
	for _, ad := range folded {
		if _, err := checkAdvisor(ad); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Check runs the load checks that need a registry: `_activity` consts name an
// existing activity, `_delegate` names a protocol agent or "anonymous" (DG1).
func (a *Agent) Check(reg Registry) error {
	var errs []error
	for _, d := range a.Tools {
		dc, err := parseDecl(d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := dc.resolveKind(reg); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("protocol agent %q: %w", a.Key, errors.Join(errs...))
	}
	return nil
}
