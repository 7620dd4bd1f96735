package textfile

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	cases := []struct {
		in   string
		want *NotText
	}{
		{"plain\ntext ✓\n\ttab\x01ctl\r\n", nil},
		{"", nil},
		{"a\nb\ncaf\xe9\n", &NotText{Line: 3, Col: 4, Value: 0xe9}},
		{"ok ✓\nx\x00y", &NotText{Line: 2, Col: 2, Value: 0}},
		{"\xe2\x9c", &NotText{Line: 1, Col: 1, Value: 0xe2}}, // a rune cut short
	}
	for _, c := range cases {
		got := Check([]byte(c.in))
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("Check(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

// Every byte that is not UTF-8 on its own is found, at its column.
func TestEveryByte(t *testing.T) {
	for b := 0; b < 256; b++ {
		got := Check([]byte("x\nab" + string([]byte{byte(b)}) + "\n"))
		bad := b == 0 || b >= 0x80
		if bad != (got != nil) {
			t.Fatalf("byte 0x%02x: Check = %+v", b, got)
		}
		if got != nil && (got.Line != 2 || got.Col != 3 || got.Value != byte(b) || !strings.HasPrefix(got.Error(), "not text: byte 3 ")) {
			t.Fatalf("byte 0x%02x: %+v %q", b, got, got.Error())
		}
	}
}
