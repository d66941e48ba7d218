package bench

import (
	"testing"
	"time"

	"github.com/cogen-go/cogen/internal/echoload"
)

func TestReproConet(t *testing.T) {
	for i := range 20 {
		res, err := RunHTTP("stackful/conet", echoload.Config{Conns: 100, Duration: 500 * time.Millisecond})
		if err != nil {
			t.Fatal(i, err)
		}
		t.Log(i, res.Result)
	}
}
