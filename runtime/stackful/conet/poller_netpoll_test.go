//go:build !linux || cogen_netpoll

package conet

// portablePoller reports that the loop runs on the portable poller, which
// holds a duplicate of every registered descriptor.
const portablePoller = true
