// Package resp is a small Redis client (RESP2) written once as stackful
// coroutine code over the handle's Read and Write, and run in both models:
// cogen generates its stackless twin (resp_cogen.go) from the functions
// marked //co:stackless. Pipelining (Append, then Flush, then one Receive
// per command), bulk strings, integers, arrays of scalars, null replies
// and error replies are supported; RESP3, nested arrays and pub/sub are
// not.
//
// It is the generator on a real protocol: [Conn.Do], [Conn.Flush] and
// [Conn.Receive] in a stackful coroutine, and the frames ConnDoFrame,
// ConnFlushFrame and ConnReceiveFrame in a stackless task, speak to the
// same redis-server (see resp_test.go; the tests against a server skip
// without one outside CI). cmd/cobench's db group compares them with
// go-redis.
//
// Costs: a command that fits the buffers allocates nothing in either
// model (the stackless frames are allocated per call, unless reused); a
// reply's strings alias the conn's read buffer until the next Receive.
package resp
