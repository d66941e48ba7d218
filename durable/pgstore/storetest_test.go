package pgstore

import (
	"testing"

	"github.com/cogen-go/cogen/durable"
	"github.com/cogen-go/cogen/durable/storetest"
)

// TestStore runs the durable.Store conformance suite, each case on a
// schema of its own.
func TestStore(t *testing.T) {
	serverURL(t)
	storetest.Run(t, func(t *testing.T) durable.Store { return openTest(t) })
}
