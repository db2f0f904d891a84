package exec

import "time"

// ExpireWait returns cfg with its reply waits under the test's control:
// wait number k (0 = the hello, 1 = round 0's decision, …) expires at once
// and every other wait never expires, so the timeout path runs at a chosen
// point with no wall clock involved.
func ExpireWait(cfg Config, k int) Config {
	n := 0
	cfg.expiry = func(time.Duration) <-chan time.Time {
		defer func() { n++ }()
		if n != k {
			return nil // a nil channel never fires: this wait ends with the reply
		}
		c := make(chan time.Time)
		close(c)
		return c
	}
	return cfg
}

// ParseActionsFast and ParseActionsJSON decode an actions reply by the
// fast path (false when it declines the line) and by encoding/json, into
// the exported mirror of the reply, for the test that they agree.
func ParseActionsFast(data []byte) (ActionsReply, bool) {
	var in actionsIn
	ok := parseActionsFast(data, &in)
	return ActionsReply(in), ok
}

func ParseActionsJSON(data []byte) (ActionsReply, error) {
	var in actionsIn
	err := decode(data, &in)
	return ActionsReply(in), err
}

type ActionsReply actionsIn

// EscapeStream is escapeStream, for its hand-worked test.
func EscapeStream(dst, b []byte) (out, rest []byte) { return escapeStream(dst, b) }
