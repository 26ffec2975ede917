package ui

// Changed tells the viewer's engine and open pages of a change under a
// root (path "": anything may have changed), as its watcher does.
func (s *Server) Changed(root, path string) { s.live.Changed(root, path) }
