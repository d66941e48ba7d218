//go:build cogen_coroswitch && go1.27

package stackful

// The raw switch (switch_coro.go) was checked against the runtime of Go
// 1.23 through 1.26 only: build without the cogen_coroswitch tag, or
// check runtime.newcoro and runtime.coroswitch of this release first.
var _ = cogen_coroswitch_supports_go1_23_to_go1_26_only_build_without_the_tag
