package config

import (
	"errors"
	"strings"
	"testing"
)

func TestPricesOverrideAndAddToTheBuiltInTable(t *testing.T) {
	global := "[prices.\"claude-sonnet-4-5\"]\ninput = 4.0\noutput = 20.0\ncache_read = 0.4\ncache_write = 5.0\n"
	proj := "[prices.\"my-local-model\"]\ninput = 0.5\noutput = 1.5\n"
	l := mustLoad(t, global, proj)
	tab := l.Config.PriceTable()
	p, ok := tab.Lookup("claude-sonnet-4-5-20250929")
	if !ok || p.Input != 4 || p.Output != 20 || p.CacheRead != 0.4 || p.CacheWrite != 5 {
		t.Errorf("overridden price = %+v, %v", p, ok)
	}
	// Cache prices left out cost what input does.
	p, ok = tab.Lookup("my-local-model")
	if !ok || p.Input != 0.5 || p.Output != 1.5 || p.CacheRead != 0.5 || p.CacheWrite != 0.5 {
		t.Errorf("added price = %+v, %v", p, ok)
	}
	// The rest of the built-in table stays.
	if p, ok := tab.Lookup("gpt-5"); !ok || p.Output != 10 {
		t.Errorf("gpt-5 = %+v, %v", p, ok)
	}
	if _, ok := tab.Lookup("no-such-model"); ok {
		t.Error("an unknown model has a price")
	}
}

func TestBadPricesAreRefusedWithTheirPosition(t *testing.T) {
	for name, tc := range map[string]struct{ file, want string }{
		"negative":   {"[prices.\"m\"]\ninput = 1.0\noutput = -2.0\n", `:3:10: invalid value for "prices.m.output": -2 must be a price of zero or more`},
		"no output":  {"max_recursion_depth = 5\n\n[prices.\"m\"]\ninput = 1.0\n", `:3:2: invalid value for "prices.m": needs input and output`},
		"wrong type": {"[prices.\"m\"]\ninput = \"cheap\"\noutput = 1.0\n", `:2:9: wrong type for "prices.m.input"`},
		"bad key":    {"[prices.\"m\"]\ninput = 1.0\noutput = 1.0\ncache = 1.0\n", `:4:1: unknown key "prices.m.cache"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, p := files(t, "", tc.file)
			_, err := LoadFiles("", p)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if got := err.Error(); !strings.Contains(got, p+tc.want) {
				t.Fatalf("err = %q, want it to hold %q", got, p+tc.want)
			}
		})
	}
}
