package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// ClusterConfig points csa at a NATS JetStream cluster, where `csa run
// --remote` queues runs for `csa worker` processes on other machines.
// Without a URL csa is a single machine, as it always was.
type ClusterConfig struct {
	// URL is one or more server URLs, comma-separated
	// ("nats://a:4222,nats://b:4222"); "" for no cluster.
	URL string `toml:"url"`
	// Credentials is a NATS credentials file (a user JWT and its nkey seed).
	Credentials string `toml:"credentials"`
	// TLSCA verifies the servers; TLSCert and TLSKey are the client's own
	// certificate, for servers that ask for one.
	TLSCA   string `toml:"tls_ca"`
	TLSCert string `toml:"tls_cert"`
	TLSKey  string `toml:"tls_key"`
	// Default is where `csa run` runs without --remote: "local" or
	// "remote" (queued on the cluster).
	Default string `toml:"default"`
	// Remote is a git remote (URL or path) every worker can fetch from:
	// csa run --remote then sends the commit at HEAD by name (it must be
	// pushed there already) instead of a bundle of it. "" sends bundles.
	Remote string `toml:"remote"`
}

// Where a run goes by default.
const (
	ClusterLocal  = "local"
	ClusterRemote = "remote"
)

// Enabled reports whether a cluster is configured.
func (c ClusterConfig) Enabled() bool { return c.URL != "" }

// URLs are the servers of URL, in order.
func (c ClusterConfig) URLs() []string {
	var out []string
	for _, u := range strings.Split(c.URL, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

func (c *Config) validateCluster() []problem {
	var ps []problem
	k := c.Cluster
	bad := func(detail string, key string) {
		ps = append(ps, problem{KindValue, []string{"cluster", key}, detail})
	}
	if strings.TrimSpace(k.URL) != "" && len(k.URLs()) == 0 {
		bad("no server URL between the commas", "url")
	}
	for _, raw := range k.URLs() {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" {
			bad(fmt.Sprintf("%q is not a nats:// or tls:// URL such as \"nats://host:4222\"", raw), "url")
		}
	}
	switch k.Default {
	case ClusterLocal:
	case ClusterRemote:
		if !k.Enabled() {
			bad(`"remote" needs cluster.url`, "default")
		}
	default:
		bad(fmt.Sprintf("%q is not one of local, remote", k.Default), "default")
	}
	for key, p := range map[string]string{"credentials": k.Credentials, "tls_ca": k.TLSCA, "tls_cert": k.TLSCert, "tls_key": k.TLSKey} {
		if p != "" && !filepath.IsAbs(p) {
			bad(fmt.Sprintf("%q must be an absolute path", p), key)
		}
	}
	if k.Remote != "" && !gitURL(k.Remote) {
		bad(fmt.Sprintf("%q is not a git URL (scheme://..., user@host:path) or an absolute path", k.Remote), "remote")
	}
	if (k.TLSCert == "") != (k.TLSKey == "") {
		bad("tls_cert and tls_key go together: set both or neither", "tls_key")
	}
	return ps
}

// gitURL: what git fetch takes as a remote every machine can name: a URL
// with a scheme, scp-like user@host:path, or an absolute path.
func gitURL(s string) bool {
	if strings.ContainsAny(s, " \t\n") {
		return false
	}
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && (u.Host != "" || u.Scheme == "file") {
		return true
	}
	if host, path, ok := strings.Cut(s, ":"); ok && host != "" && path != "" && !strings.Contains(host, "/") {
		return true
	}
	return filepath.IsAbs(s)
}
