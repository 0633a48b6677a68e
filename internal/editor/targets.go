package editor

import "github.com/aitexteditor/aite/internal/cursor"

// CreateTargets makes (or replaces) a named target set from pointers;
// invalid pointers are reported in the result, not fatal.
func (s *Session) CreateTargets(id, name string, ptrs []string) (cursor.TargetReport, error) {
	var out cursor.TargetReport
	err := s.with(id, func(b *book) error {
		var err error
		out, err = b.reg.CreateTargets(b.doc, name, ptrs)
		return err
	})
	return out, err
}

// AddTargets adds items to a target set.
func (s *Session) AddTargets(id, name string, ptrs []string) (cursor.TargetReport, error) {
	var out cursor.TargetReport
	err := s.with(id, func(b *book) error {
		var err error
		out, err = b.reg.AddTargets(b.doc, name, ptrs)
		return err
	})
	return out, err
}

// Targets returns a target set in document order with current pointers.
func (s *Session) Targets(id, name string) (cursor.TargetView, error) {
	var out cursor.TargetView
	err := s.with(id, func(b *book) error {
		var err error
		out, err = b.reg.GetTargets(b.doc, name)
		return err
	})
	return out, err
}

// TargetSets lists a book's target sets.
func (s *Session) TargetSets(id string) ([]cursor.TargetSummary, error) {
	var out []cursor.TargetSummary
	err := s.with(id, func(b *book) error { out = b.reg.ListTargets(); return nil })
	return out, err
}

// DeleteTargets removes a target set.
func (s *Session) DeleteTargets(id, name string) error {
	return s.with(id, func(b *book) error { return b.reg.DeleteTargets(name) })
}
