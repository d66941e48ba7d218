//go:build linux || darwin || freebsd

package stackful

// ServerListenFD is s's listening descriptor, for the tests of package
// stackful_test.
func ServerListenFD(s *Server) int { return s.lfd }
