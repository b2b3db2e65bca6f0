package apptest

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
)

// LogBuffer collects a service's log lines, safe for concurrent writers.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
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
