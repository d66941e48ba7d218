package durabletest

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	_ "github.com/cogen-go/cogen/internal/durabletest/enc" // its codecs carry big.Int and regexp.Regexp
	"github.com/cogen-go/cogen/runtime/stackful"
	"github.com/cogen-go/cogen/runtime/stackless"
)

// Query holds values of other packages' types that codecs carry: a
// *regexp.Regexp that queries share (enc.Regexp) and a big.Int by value
// (enc.BigInt).
type Query struct {
	Name    string
	Pattern *regexp.Regexp
	Hits    big.Int
}

// ErrorCodecUses counts the calls of errorCodec, which serves error in
// this package before enc.Error.
var ErrorCodecUses int

// errorCodec carries an error as "!" and its text, nil as no bytes.
var errorCodec = stackless.Codec[error]{
	Marshal: func(x *error) ([]byte, error) {
		ErrorCodecUses++
		if *x == nil {
			return nil, nil
		}
		return []byte("!" + (*x).Error()), nil
	},
	Unmarshal: func(b []byte, x *error) error {
		ErrorCodecUses++
		text, ok := strings.CutPrefix(string(b), "!")
		switch {
		case len(b) == 0:
			*x = nil
		case !ok:
			return fmt.Errorf("an error's bytes start with %q", b[0])
		default:
			*x = errors.New(text)
		}
		return nil
	},
}

// Search matches words against queries that share a compiled pattern,
// keeps running products and sums in big.Ints (one by value, three
// pointers to two values in a slice) and the last error, with a
// checkpoint after every word.
//
//co:stackless durable
func Search(co *stackful.Co, words []string) string {
	vowels := regexp.MustCompile(`[aeiou]{2}`)
	queries := map[string]*Query{
		"double": {Name: "double", Pattern: vowels},
		"again":  {Name: "again", Pattern: vowels},
		"end":    {Name: "end", Pattern: regexp.MustCompile(`d$`)},
	}
	total := big.NewInt(1)
	sums := []*big.Int{total, new(big.Int), total}
	var product big.Int
	product.SetInt64(1)
	var lastErr error
	for i, w := range words {
		for _, name := range []string{"double", "again", "end"} {
			if q := queries[name]; q.Pattern.MatchString(w) {
				q.Hits.Add(&q.Hits, big.NewInt(int64(i+1)))
			}
		}
		if !queries["end"].Pattern.MatchString(w) {
			lastErr = fmt.Errorf("%s: no match for %s", w, queries["end"].Pattern)
		}
		product.Mul(&product, big.NewInt(int64(len(w)*1_000_003)))
		total.Add(total, &product)
		sums[1].Sub(sums[1], big.NewInt(int64(i)))
		logf("search %s product=%s total=%s err=%v", w, &product, sums[2], lastErr)
		co.Gosched()
	}
	out := fmt.Sprintf("sums=%s,%s,%s shared=%v same=%v", sums[0], sums[1], sums[2], sums[0] == sums[2], queries["double"].Pattern == queries["again"].Pattern)
	for _, name := range []string{"double", "again", "end"} {
		out += fmt.Sprintf(" %s:%s", name, &queries[name].Hits)
	}
	logf("search done %s err=%v", out, lastErr)
	return out
}
