package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/appserver"
	"github.com/csa-dev/csa/internal/toolcache"
)

// Every method csa-agent's app-server speaks is one of Codex's, with the
// same required params, and its results carry at least the fields Codex's
// require: the schema of the installed codex (`codex app-server
// generate-json-schema`) is the reference.
func TestAppServerFitsCodex(t *testing.T) {
	codex, err := toolcache.Bin("codex")
	if err != nil {
		t.Fatalf("the fit with Codex needs the pinned codex (make agents): %v", err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "app-server", "generate-json-schema", "--out", filepath.Join(dir, "out"))
	cmd.Env = append(os.Environ(), "HOME="+dir, "CODEX_HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s app-server generate-json-schema: %v\n%s", codex, err, out)
	}
	theirs := loadJSON(t, filepath.Join(dir, "out", "codex_app_server_protocol.schemas.json"))
	b, err := appserver.Schema()
	if err != nil {
		t.Fatal(err)
	}
	var ours map[string]any
	if err := json.Unmarshal(b, &ours); err != nil {
		t.Fatal(err)
	}

	for table, union := range map[string]string{"clientRequests": "ClientRequest", "serverRequests": "ServerRequest",
		"serverNotifications": "ServerNotification", "clientNotifications": "ClientNotification"} {
		codexMethods := methodsOf(t, theirs, union)
		for name, e := range ours[table].(map[string]any) {
			variant, ok := codexMethods[name]
			if !ok {
				t.Errorf("%s %s is not in Codex's %s", table, name, union)
				continue
			}
			entry, _ := e.(map[string]any)
			if entry["params"] == nil {
				continue
			}
			mine := resolve(t, ours, entry["params"].(map[string]any))
			ref, _ := variant["properties"].(map[string]any)["params"].(map[string]any)
			if ref == nil {
				t.Errorf("%s: Codex's takes no params, csa-agent's does", name)
				continue
			}
			their := resolve(t, theirs, ref)
			if got, want := required(mine), required(their); got != want {
				t.Errorf("%s params: csa-agent requires [%s], Codex [%s]", name, got, want)
			}
			if entry["result"] == nil || table != "clientRequests" {
				continue
			}
			// Codex's result: the params' definition named ...Response.
			resName := strings.TrimSuffix(filepath.Base(ref["$ref"].(string)), "Params") + "Response"
			res := find(theirs["definitions"].(map[string]any), resName)
			if res == nil {
				t.Errorf("%s: no %s in Codex's schema", name, resName)
				continue
			}
			always := "," + required(resolve(t, ours, entry["result"].(map[string]any))) + ","
			for _, f := range strings.Split(required(res), ",") {
				if f != "" && !strings.Contains(always, ","+f+",") {
					t.Errorf("%s result does not always carry %q, which Codex's %s requires", name, f, resName)
				}
			}
		}
	}
}

func loadJSON(t *testing.T, path string) map[string]any {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// methodsOf maps the method names of one of Codex's message unions
// (ClientRequest...) to their variants.
func methodsOf(t *testing.T, doc map[string]any, union string) map[string]map[string]any {
	u := find(doc["definitions"].(map[string]any), union)
	if u == nil {
		t.Fatalf("no %s in Codex's schema", union)
	}
	out := map[string]map[string]any{}
	for _, v := range u["oneOf"].([]any) {
		variant := v.(map[string]any)
		m := variant["properties"].(map[string]any)["method"].(map[string]any)
		for _, name := range m["enum"].([]any) {
			out[name.(string)] = variant
		}
	}
	return out
}

// find looks a definition up by name, in nested namespaces (v2) too.
func find(defs map[string]any, name string) map[string]any {
	if d, ok := defs[name].(map[string]any); ok {
		return d
	}
	for _, v := range defs {
		if ns, ok := v.(map[string]any); ok && ns["type"] == nil && ns["properties"] == nil && ns["oneOf"] == nil {
			if d := find(ns, name); d != nil {
				return d
			}
		}
	}
	return nil
}

// resolve follows a "#/definitions/..." reference.
func resolve(t *testing.T, doc, s map[string]any) map[string]any {
	ref, ok := s["$ref"].(string)
	if !ok {
		return s
	}
	var cur any = doc
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, _ := cur.(map[string]any)
		cur = m[part]
	}
	out, ok := cur.(map[string]any)
	if !ok {
		t.Fatalf("unresolved %s", ref)
	}
	return out
}

func required(s map[string]any) string {
	var names []string
	list, _ := s["required"].([]any)
	for _, r := range list {
		names = append(names, r.(string))
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}
