//go:build !linux || cogen_netpoll

package loop

// groupBackend is a Group's default backend (GroupConfig.Backend): the
// platform's default here.
const groupBackend = BackendAuto
