package clustercmd

import (
	"errors"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/session"
)

// Configured is the cluster of the current directory's configuration;
// ok is false when there is none (or the file does not load: the local
// command reports that itself).
func Configured(f *cmdutil.Factory) (config.ClusterConfig, bool) {
	l, _, err := f.CwdConfig()
	if err != nil || !l.Config.Cluster.Enabled() {
		return config.ClusterConfig{}, false
	}
	return l.Config.Cluster, true
}

// Split resolves ids in store; those it does not hold are remote when a
// cluster is configured (whole ids: csa-cluster does not complete
// prefixes). Without a cluster an unknown id is the store's not-found
// error, as before.
func Split(f *cmdutil.Factory, store *session.Store, ids []string) (local, remote []string, err error) {
	_, cl := Configured(f)
	for _, id := range ids {
		full, err := store.Resolve(id)
		var nf *session.NotFoundError
		if errors.As(err, &nf) && cl {
			remote = append(remote, id)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		local = append(local, full)
	}
	return local, remote, nil
}
