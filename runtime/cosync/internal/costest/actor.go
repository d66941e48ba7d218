package costest

import (
	"github.com/cogen-go/cogen/runtime/cosync"
	"github.com/cogen-go/cogen/runtime/stackful"
)

// Command operations of an Actor.
const (
	OpSend = iota + 1
	OpRecv
)

// A Cmd tells an Actor to send Val on channel Ch, or to receive from it.
type Cmd struct {
	Op, Ch, Val int
}

// Actor runs the commands it receives on cmds, one at a time, against
// chans, logging each outcome as "a<id> sent <v> on c<ch>" or "a<id> recv
// <v> <ok> on c<ch>"; it returns when cmds is closed. The differential test
// drives actors of both models and of Go's channels with the same commands.
//
//co:stackless
func Actor(co *stackful.Co, id int, cmds *cosync.Chan[Cmd], chans []*cosync.Chan[int], log *Log) {
	for {
		cmd, ok := cmds.Recv(co)
		if !ok {
			return
		}
		switch cmd.Op {
		case OpSend:
			chans[cmd.Ch].Send(co, cmd.Val)
			log.Add("a%d sent %d on c%d", id, cmd.Val, cmd.Ch)
		case OpRecv:
			v, ok := chans[cmd.Ch].Recv(co)
			log.Add("a%d recv %d %v on c%d", id, v, ok, cmd.Ch)
		}
	}
}
