//go:build unix

package cohttp

import (
	"net/url"
	"testing"
)

// TestSplitTarget: the path and host split from a request target are
// net/http's URL.EscapedPath and URL.Host for it, in every target form.
func TestSplitTarget(t *testing.T) {
	for _, target := range []string{
		"/", "/a/b?q=1", "/a%20b?q", "*", "/?", "/a?b?c",
		"http://x/", "http://x", "http://x?q=1", "http://x/a/b?q=1", "HTTP://X:8080/a",
		"https://user:pw@host:1/p", "http://[::1]:80/p?q", "http:/p", "http:opaque", "foo+bar-1.2://h/p",
		"http://x/a%2Fb",
	} {
		u, err := url.ParseRequestURI(target)
		if err != nil {
			t.Fatalf("%q: %v", target, err)
		}
		path, host := splitTarget([]byte(target))
		if string(path) != u.EscapedPath() || string(host) != u.Host {
			t.Errorf("%q: path %q host %q; net/url: %q %q", target, path, host, u.EscapedPath(), u.Host)
		}
	}
}
