package apptest

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
)

// maxLogBytes bounds what a LogBuffer keeps, so that a fuzzing run of hours does not fill the
// memory; a test that reads its logs writes far less.
const maxLogBytes = 16 << 20

// LogBuffer collects a service's log lines, safe for concurrent writers. Past maxLogBytes it
// drops its oldest lines.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len()+len(p) > maxLogBytes {
		old := b.buf.Bytes()[b.buf.Len()/2:]
		if i := bytes.IndexByte(old, '\n'); i >= 0 {
			old = old[i+1:]
		}
		b.buf = *bytes.NewBuffer(append([]byte(nil), old...))
	}
	return b.buf.Write(p)
}

// Logger logs everything, debug included, as JSON lines into b.
func (b *LogBuffer) Logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// String is every line so far.
func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Lines decodes every JSON line so far; lines that are not JSON are kept as {"msg": line}.
func (b *LogBuffer) Lines() []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		m := map[string]any{}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			m = map[string]any{"msg": line}
		}
		out = append(out, m)
	}
	return out
}

// Find returns the lines whose attribute key has the given value.
func (b *LogBuffer) Find(key string, value any) []map[string]any {
	var out []map[string]any
	for _, m := range b.Lines() {
		if m[key] == value {
			out = append(out, m)
		}
	}
	return out
}
