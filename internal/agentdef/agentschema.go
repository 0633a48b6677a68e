package agentdef

import (
	"math"
	"strconv"
	"strings"
)

// shape describes the fields an agent file may hold, to check their JSON
// types and find unknown fields before decoding.
type shape struct {
	kind   shapeKind
	fields map[string]*shape // sObject
}

type shapeKind int

const (
	sString shapeKind = iota
	sBool
	sNumber
	sInt
	sStrings
	sObject
	sIcon  // a string or {name, color}
	sAny   // any JSON value, kept as written (checked later)
	sArray // an array of any values (checked later)
)

func obj(fields map[string]*shape) *shape { return &shape{kind: sObject, fields: fields} }

// with returns a copy of the object shape s with more fields.
func (s *shape) with(more map[string]*shape) *shape {
	f := map[string]*shape{}
	for k, v := range s.fields {
		f[k] = v
	}
	for k, v := range more {
		f[k] = v
	}
	return obj(f)
}

var (
	strS, boolS, numS, intS, strsS = &shape{kind: sString}, &shape{kind: sBool}, &shape{kind: sNumber},
		&shape{kind: sInt}, &shape{kind: sStrings}
	anyS, arrS = &shape{kind: sAny}, &shape{kind: sArray}

	modelConfigShape = obj(map[string]*shape{"modelKey": strS, "temperature": numS, "top_p": numS, "max_tokens": intS,
		"reasoning": obj(map[string]*shape{"enabled": boolS, "effort": strS})})
	toolConfigShape = obj(map[string]*shape{"backends": strsS, "frontends": strsS, "actions": strsS,
		"latents": strsS, "delegates": strsS})
	stageShape      = obj(map[string]*shape{"systemPrompt": strS, "modelConfig": modelConfigShape, "toolConfig": toolConfigShape})
	callBudgetShape = obj(map[string]*shape{"maxCalls": intS, "timeoutMs": intS, "retryCount": intS})
	iconShape       = obj(map[string]*shape{"name": strS, "color": strS})

	// protocolShape is the protocol block (AGENT_PROTOCOL § 5.1).
	protocolShape = obj(map[string]*shape{
		"outputSchema": anyS, "inputSchema": anyS, "outputText": strS, "context": arrS,
		"limits":         obj(map[string]*shape{"maxTurns": intS, "maxParallel": intS, "maxDelegateDepth": intS}),
		"responseFormat": strS, "reasoningField": strS, "repairRetries": intS, "errorWindow": intS,
		"unpathedResults": strS,
		"approval": obj(map[string]*shape{"requestedScopes": strS, "timeoutMs": intS, "confirmTools": strsS,
			"calls": strS}),
		"guard": obj(map[string]*shape{"minMeanWeight": numS, "tools": strsS, "onNoVotes": strS,
			"disagreementSpread": numS}),
	})

	agentShape = obj(map[string]*shape{
		"key": strS, "name": strS, "role": strS, "description": strS, "icon": {kind: sIcon}, "mode": strS,
		"modelConfig": modelConfigShape, "toolConfig": toolConfigShape, "toolChoice": strS,
		"skills": strsS, "skillConfig": obj(map[string]*shape{"skills": strsS}),
		"budget": obj(map[string]*shape{"runTimeoutMs": intS, "model": callBudgetShape, "tool": callBudgetShape}),
		"plain":  stageShape,
		"react":  stageShape.with(map[string]*shape{"maxSteps": intS}),
		"planExecute": obj(map[string]*shape{
			"plan":    stageShape.with(map[string]*shape{"deepThinking": boolS}),
			"execute": stageShape, "summary": stageShape, "maxSteps": intS,
		}),
		"runtimePrompts": obj(map[string]*shape{
			"planExecute":  obj(map[string]*shape{"taskExecutionPromptTemplate": strS}),
			"skill":        obj(map[string]*shape{"catalogHeader": strS, "disclosureHeader": strS, "instructionsLabel": strS}),
			"toolAppendix": obj(map[string]*shape{"toolDescriptionTitle": strS, "afterCallHintTitle": strS}),
		}),
		"protocol": protocolShape,
		"advisors": arrS,
		"internal": boolS,
	})
)

// checkShape checks the JSON types of n against s and returns n without
// unknown fields (each one a warning) and without the earlier copies of a
// repeated field (a warning too). A wrong type is a rejection. null is
// accepted everywhere and means "not written" (for a stage's toolConfig:
// no ordinary tools).
func checkShape(n *node, s *shape, path string, warn func(field, format string, args ...any)) (*node, error) {
	if n.kind == nNull {
		return n, nil
	}
	switch s.kind {
	case sAny:
		return n, nil
	case sArray:
		if n.kind != nArray {
			return nil, rejectf(path, "expected array, found %s", n.kind)
		}
		return n, nil
	}
	if s.kind == sIcon {
		if n.kind == nString {
			return n, nil
		}
		if n.kind != nObject {
			return nil, rejectf(path, "expected %s, found %s", typeName(s.kind), n.kind)
		}
		return checkFields(n, iconShape, path, warn)
	}
	want := [...]nodeKind{sString: nString, sBool: nBool, sNumber: nNumber, sInt: nNumber, sStrings: nArray, sObject: nObject}
	if n.kind != want[s.kind] {
		return nil, rejectf(path, "expected %s, found %s", typeName(s.kind), n.kind)
	}
	switch s.kind {
	case sInt:
		v, err := strconv.ParseFloat(n.str, 64)
		if err != nil || v != math.Trunc(v) || math.Abs(v) > math.MaxInt32 {
			return nil, rejectf(path, "expected an integer, found %s", n.str)
		}
		return &node{kind: nNumber, str: strconv.Itoa(int(v))}, nil
	case sStrings:
		for i, e := range n.elems {
			if e.kind != nString {
				return nil, rejectf(indexPath(path, i), "expected string, found %s", e.kind)
			}
		}
	case sObject:
		return checkFields(n, s, path, warn)
	}
	return n, nil
}

func checkFields(n *node, s *shape, path string, warn func(field, format string, args ...any)) (*node, error) {
	out := &node{kind: nObject}
	for i, k := range n.keys {
		field := joinPath(path, k)
		sub := s.fields[k]
		switch {
		case sub == nil:
			warn(field, "unknown field; ignored")
			continue
		case n.get(k) != n.elems[i]:
			warn(field, "written more than once; the last one is used")
			continue
		}
		v, err := checkShape(n.elems[i], sub, field, warn)
		if err != nil {
			return nil, err
		}
		out.keys, out.elems = append(out.keys, k), append(out.elems, v)
	}
	return out, nil
}

func typeName(k shapeKind) string {
	return [...]string{"string", "boolean", "number", "integer", "array of strings", "object", "string or object",
		"any value", "array"}[k]
}

// Where a key sits, for the rejection rules.
type location int

const (
	locOther location = iota
	locTop
	locStage     // plain, react, planExecute.plan
	locExecStage // planExecute.execute, planExecute.summary
	locPlanExecute
	locModelConfig
	locBudget
	locRuntimePrompts
	locProtocol // the protocol block
	locContext  // protocol.context and its entries
	locAdvisors // the advisors array and its entries
	locSchema   // a JSON Schema held by the protocol keys: never checked
)

// Legacy fields rejected at the top level and in every stage block.
var legacyFields = map[string]string{
	"deepThink":   "legacy field; use planExecute.plan.deepThinking",
	"providerKey": "legacy field; the model file names the provider (use modelConfig.modelKey)",
	"model":       "legacy field; use modelConfig.modelKey",
	"reasoning":   "legacy field; use modelConfig.reasoning",
	"tools":       "legacy field; use toolConfig {backends, frontends, actions}",
	"verify":      "no longer supported",
	"output":      "no longer supported",
	"toolPolicy":  "no longer supported; use toolChoice and toolConfig",
}

// rejectedField returns why key at loc rejects the agent, or "".
func rejectedField(loc location, key string) string {
	if norm := strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(key)); norm == "apikey" || norm == "baseurl" {
		return "secrets and endpoints belong to the provider config only"
	}
	switch loc {
	case locTop, locStage, locExecStage, locPlanExecute:
		if r := legacyFields[key]; r != "" {
			return r
		}
	case locModelConfig:
		if key == "provider" || key == "model" {
			return "not allowed in modelConfig; use modelKey (the model file names provider and model)"
		}
	case locBudget:
		if key == "maxSteps" {
			return "not allowed in budget; use react.maxSteps or planExecute.maxSteps"
		}
	case locRuntimePrompts:
		switch key {
		case "verify", "finalAnswer", "oneshot", "react":
			return "no longer supported"
		}
	}
	switch {
	case loc == locTop && key == "systemPrompt":
		return "not allowed at the top level; put the prompt in the mode's block (plain, react or planExecute)"
	case loc == locExecStage && key == "deepThinking":
		return "only planExecute.plan may set deepThinking"
	}
	return ""
}

// childLocation returns the location of the value of key at loc. JSON
// Schemas of the protocol keys (protocol.outputSchema and inputSchema, an
// advisor's schema or answer, a context entry's schema) are locSchema: their
// property names ("apiKey", say) are data descriptions, not settings.
func childLocation(loc location, key string) location {
	switch {
	case loc == locTop && key == "protocol":
		return locProtocol
	case loc == locTop && key == "advisors":
		return locAdvisors
	case loc == locProtocol && (key == "outputSchema" || key == "inputSchema"):
		return locSchema
	case loc == locProtocol && key == "context":
		return locContext
	case (loc == locAdvisors || loc == locContext) && (key == "schema" || key == "answer"):
		return locSchema
	case key == "modelConfig" && (loc == locTop || loc == locStage || loc == locExecStage):
		return locModelConfig
	case loc == locTop:
		return map[string]location{"plain": locStage, "react": locStage, "planExecute": locPlanExecute,
			"budget": locBudget, "runtimePrompts": locRuntimePrompts}[key]
	case loc == locPlanExecute:
		return map[string]location{"plan": locStage, "execute": locExecStage, "summary": locExecStage}[key]
	}
	return locOther
}

// findRejected returns the first rejected field of the tree, in document
// order, or nil.
func findRejected(n *node, path string, loc location) *rejection {
	if loc == locSchema {
		return nil
	}
	for i, e := range n.elems {
		field := indexPath(path, i)
		if n.kind == nObject {
			field = joinPath(path, n.keys[i])
			if r := rejectedField(loc, n.keys[i]); r != "" {
				return &rejection{field: field, reason: r}
			}
		}
		sub := locOther
		switch {
		case n.kind == nObject:
			sub = childLocation(loc, n.keys[i])
		case loc == locAdvisors || loc == locContext:
			sub = loc // the entries of advisors and protocol.context
		}
		if r := findRejected(e, field, sub); r != nil {
			return r
		}
	}
	return nil
}
