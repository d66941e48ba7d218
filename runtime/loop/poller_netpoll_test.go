//go:build !linux || cogen_netpoll

package loop

// pollerFDs is how many descriptors New opens: none for the portable poller.
const pollerFDs = 0
