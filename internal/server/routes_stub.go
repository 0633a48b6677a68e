package server

// TODO(helpers): each register function moves to its handler file.

func (s *Server) registerMeta()      {}
func (s *Server) registerDocuments() {}
func (s *Server) registerChats()     {}

// Documents holds the server's documents (documents.go replaces this).
type Documents struct{}
