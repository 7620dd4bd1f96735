package session_test

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/session"
)

// fillStrings sets every string a State can hold (fields, slice elements,
// fields of nested structs, which it allocates) to s, leaving id and state.
func fillStrings(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Pointer:
		if v.IsNil() && v.Type().Elem().Kind() == reflect.Struct && v.Type().Elem() != reflect.TypeFor[time.Time]() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		if !v.IsNil() {
			fillStrings(v.Elem(), s)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillStrings(v.Field(i), s)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.String || v.Type().Elem().Kind() == reflect.Struct {
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
			fillStrings(v.Index(0), "plain")
			fillStrings(v.Index(1), s)
		}
	}
}

// Every byte value 0x00-0xff, alone and beside bytes that are not UTF-8,
// in every string field of a state (prompt in args, paths, model, reason,
// result, failure, tier chain, tmux socket...): saved and loaded, the
// state is the same, byte for byte.
func TestStateRoundTripsEveryByte(t *testing.T) {
	s := newStore(t)
	id := idAt(1)
	if err := s.MakeDir(id); err != nil {
		t.Fatal(err)
	}
	for b := 0; b < 256; b++ {
		for _, val := range []string{string([]byte{byte(b)}), "caf" + string([]byte{byte(b), 0xe9, '\n', 0xff})} {
			st := &session.State{}
			fillStrings(reflect.ValueOf(st).Elem(), val)
			st.ID, st.Status, st.RawBytes, st.Damaged = id, session.Completed, nil, nil
			st.CreatedAt = t0
			if err := s.Save(st); err != nil {
				t.Fatalf("byte %#x: save: %v", b, err)
			}
			got, err := s.Load(id)
			if err != nil {
				t.Fatalf("byte %#x: load: %v", b, err)
			}
			if len(got.Damaged) != 0 {
				t.Fatalf("byte %#x: damaged %v", b, got.Damaged)
			}
			got.RawBytes, st.RawBytes = nil, nil
			if !reflect.DeepEqual(got, st) {
				t.Fatalf("byte %#x (%q): loaded\n%#v\nwant\n%#v", b, val, got, st)
			}
		}
	}
}

// A state file csa cannot read whole still gives its session: fields with
// bytes that are not UTF-8 (from a csa that wrote them raw) read with
// U+FFFD, a field whose value is broken is left out, and both are named.
func TestLoadSurvivesWhatItCannotDecode(t *testing.T) {
	s := newStore(t)
	id := idAt(2)
	if err := s.MakeDir(id); err != nil {
		t.Fatal(err)
	}
	st := &session.State{ID: id, Tool: "codex", Status: session.Failed, Model: "m", Args: []string{"exec", "x"},
		Result: "r", Failure: &session.Failure{Class: session.FailCrashed, Message: "boom"}, CreatedAt: t0}
	if err := s.Save(st); err != nil {
		t.Fatal(err)
	}
	path := s.Path(id, session.StateFile)
	data, _ := os.ReadFile(path)
	text := string(data)
	text = strings.Replace(text, "'exec', 'x'", "'exec', \"caf\xe9\"", 1)
	text = strings.Replace(text, "model = 'm'", "model = 'm", 1)                // unterminated
	text = strings.Replace(text, "message = 'boom'", "message = \"b\xffm\"", 1) // in a table
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(id)
	if err != nil {
		t.Fatalf("load: %v\n%s", err, text)
	}
	if want := []string{"/model", "/args", "/failure/message"}; !slices.Equal(got.Damaged, want) {
		t.Errorf("damaged = %q, want %q", got.Damaged, want)
	}
	if got.Model != "" || got.Args[1] != "caf\uFFFD" || got.Failure.Message != "b\uFFFDm" || got.Result != "r" || got.Tool != "codex" {
		t.Errorf("read %+v", got)
	}
	// What a reader saves keeps the mark: the bytes are gone.
	if err := s.Save(got); err != nil {
		t.Fatal(err)
	}
	again, err := s.Load(id)
	if err != nil || !slices.Equal(again.Damaged, got.Damaged) {
		t.Fatalf("after a save: %v, damaged %v", err, again)
	}
}
