package tfb

import (
	"context"
	"os"
	"testing"
)

// dbURL returns COGEN_PG_URL (see .ci/dbservers): the tests skip without
// it outside CI and fail with CI=true.
func dbURL(t *testing.T) string {
	t.Helper()
	url := os.Getenv("COGEN_PG_URL")
	if url == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("COGEN_PG_URL not set; CI=true requires PostgreSQL")
		}
		t.Skip("PostgreSQL absent: set COGEN_PG_URL (source .ci/dbservers; dbservers_start)")
	}
	if err := Setup(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	return url
}

// TestValidate runs TechEmpower's response rules against each of the five
// servers, one after the other, on the real database.
func TestValidate(t *testing.T) {
	url := dbURL(t)
	for _, kind := range Servers {
		t.Run(kind, func(t *testing.T) {
			r, err := Serve(kind, url, 4)
			if err != nil {
				t.Fatal(err)
			}
			errs := Validate(r.Addr, url)
			if err := r.Stop(); err != nil {
				t.Errorf("stop: %v", err)
			}
			for _, err := range errs {
				t.Error(err)
			}
		})
	}
}

func TestQueriesParam(t *testing.T) {
	for uri, want := range map[string]int{
		"/queries": 1, "/queries?queries=": 1, "/queries?queries=foo": 1, "/queries?queries=0": 1,
		"/queries?queries=-3": 1, "/queries?queries=7": 7, "/queries?x=1&queries=20": 20,
		"/queries?queries=500": 500, "/queries?queries=501": 500, "/queries?xqueries=5": 1,
	} {
		if got := QueriesParam([]byte(uri)); got != want {
			t.Errorf("QueriesParam(%q) = %d, want %d", uri, got, want)
		}
	}
}
