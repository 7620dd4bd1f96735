package cluster

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// atLeader is a key's last entry in a bucket as the bucket's stream
// leader holds it.
type atLeader struct {
	rev     uint64
	value   []byte
	deleted bool // a delete or purge marker
}

// lastAtLeader reads key's last entry in bucket from the bucket's stream
// leader: a key-value get is a direct get, which any replica may answer,
// and one behind the leader answers with an older entry. found is false
// when the key has none.
func (c *Cluster) lastAtLeader(ctx context.Context, bucket, key string) (e atLeader, found bool, err error) {
	subject := jetstream.DefaultAPIPrefix + "STREAM.MSG.GET.KV_" + bucket
	req, _ := json.Marshal(map[string]string{"last_by_subj": "$KV." + bucket + "." + key})
	err = retry(ctx, func(ctx context.Context) error {
		m, err := c.NC.RequestWithContext(ctx, subject, req)
		if err != nil {
			return err
		}
		var resp struct {
			Error   *jetstream.APIError `json:"error"`
			Message *struct {
				Seq    uint64 `json:"seq"`
				Header []byte `json:"hdrs"`
				Data   []byte `json:"data"`
			} `json:"message"`
		}
		if err := json.Unmarshal(m.Data, &resp); err != nil {
			return fmt.Errorf("%s in %s: %w", key, bucket, err)
		}
		switch {
		case resp.Error != nil && resp.Error.ErrorCode == jetstream.JSErrCodeMessageNotFound:
			e, found = atLeader{}, false
		case resp.Error != nil:
			return resp.Error
		case resp.Message == nil:
			return fmt.Errorf("%s in %s: an empty answer", key, bucket)
		default:
			e, found = atLeader{rev: resp.Message.Seq, value: resp.Message.Data}, true
			if len(resp.Message.Header) > 0 {
				h, err := nats.DecodeHeadersMsg(resp.Message.Header)
				if err != nil {
					return fmt.Errorf("%s in %s: %w", key, bucket, err)
				}
				op := h.Get("KV-Operation")
				e.deleted = op == "DEL" || op == "PURGE"
			}
		}
		return nil
	})
	return e, found, err
}

// latest reads session id's record from the sessions bucket's leader: at
// least as new as any write acknowledged before the read, for a decision
// a replica behind must not make.
func (c *Cluster) latest(ctx context.Context, id string) (*Record, uint64, error) {
	e, found, err := c.lastAtLeader(ctx, SessionsBucket, id)
	if err != nil {
		return nil, 0, fmt.Errorf("cluster: session %s: %w", id, err)
	}
	if !found || e.deleted {
		return nil, 0, fmt.Errorf("%w %s", ErrNotFound, id)
	}
	var r Record
	if err := decodeJSON(e.value, &r); err != nil {
		return nil, 0, fmt.Errorf("cluster: session %s: %w: %w", id, errCorrupt, err)
	}
	return &r, e.rev, nil
}
