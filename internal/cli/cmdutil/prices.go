package cmdutil

import (
	"fmt"

	"github.com/csa-dev/csa/internal/cost"
)

// Prices is the price table of the current directory's project: the
// built-in one under its configuration's [prices].
func (f *Factory) Prices() (cost.Table, error) {
	l, _, err := f.CwdConfig()
	if err != nil {
		return cost.Table{}, err
	}
	return l.Config.PriceTable(), nil
}

// PricesOrBuiltIn is Prices for listings that must list anyway: a
// configuration that does not load is reported on stderr and the built-in
// prices used.
func (f *Factory) PricesOrBuiltIn() cost.Table {
	t, err := f.Prices()
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "csa: %v (costs use the built-in prices)\n", err)
		return cost.Default()
	}
	return t
}
