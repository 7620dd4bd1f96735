package cost

import "strconv"

// Unknown is what a cost reads as when a model has no price.
const Unknown = "price unknown"

// Format shows USD for people: cents, or four places below a cent so that
// a cheap session does not read as free.
func Format(usd float64) string {
	if usd != 0 && usd < 0.01 {
		return "$" + strconv.FormatFloat(usd, 'f', 4, 64)
	}
	return "$" + strconv.FormatFloat(usd, 'f', 2, 64)
}
