package db

import (
	"time"

	"github.com/cogen-go/cogen/runtime/stackful/conet"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// RedisOptions returns go-redis options for a client used from hooked
// coroutines of one env: conns from [conet.Dialer], so every read, write
// and dial waits on the loop; poolSize conns; maintenance notifications
// off (their handshake holds a Go RWMutex across I/O). Every call of the
// client must go through a cosync.Semaphore of poolSize: go-redis's pool waits in
// Go's scheduler when it is exhausted.
func RedisOptions(addr string, poolSize int) *redis.Options {
	var d conet.Dialer
	return &redis.Options{
		Addr:                     addr,
		Dialer:                   d.DialContext,
		PoolSize:                 poolSize,
		PoolTimeout:              30 * time.Second,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
}
