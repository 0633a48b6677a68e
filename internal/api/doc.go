// Package api holds the wire shapes of the agent platform API under /api/ap
// (PLATFORM_API.md): the response envelope of § 1.2, request bodies, and the
// SSE events of § 3 with one payload struct per event type. It has no
// behaviour beyond JSON encoding and imports no other aite package; the
// server converts domain values into these types.
//
// Optional fields carry omitempty so an absent value is omitted, never sent
// as null (§ 1.1). Event.MarshalJSON writes seq, type and timestamp first and
// then the payload's fields in their declared order, on one line and without
// HTML escaping (§ 3.1).
package api
