package cost

import (
	"math"
	"strconv"
)

// Unknown is what a cost reads as when a model has no price.
const Unknown = "price unknown"

// Format shows USD for people: cents, or two significant digits below a
// cent, so that a cheap session does not read as free.
func Format(usd float64) string {
	places := 2
	if usd > 0 && usd < 0.01 {
		places = min(10, 1-int(math.Floor(math.Log10(usd))))
	}
	return "$" + strconv.FormatFloat(usd, 'f', places, 64)
}
