package app

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// logFlushEvery is how long an access log line may wait in memory before it is written out.
const logFlushEvery = 200 * time.Millisecond

// logLines is the service's log output. The access log's lines gather in a buffer written out
// in one system call when it fills, every logFlushEvery and when the service stops, instead of
// one write per request; every other line is written out at once, after the lines before it,
// so that the log keeps its order and a message is never late.
type logLines struct {
	mu   sync.Mutex
	w    *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

// newLogLines writes to out, flushing every every until Close.
func newLogLines(out io.Writer, every time.Duration) *logLines {
	l := &logLines{w: bufio.NewWriterSize(out, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				_ = l.Flush() // a failed write of the log has nowhere else to be reported
			case <-l.stop:
				return
			}
		}
	}()
	return l
}

// Write buffers p (an access log line).
func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Flush writes out what is buffered.
func (l *logLines) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Flush()
}

// Immediate returns the writer of every other line: each is written out at once, after
// whatever was buffered before it.
func (l *logLines) Immediate() io.Writer { return immediate{l} }

// Close stops the timer and writes out what is left.
func (l *logLines) Close() error {
	close(l.stop)
	<-l.done
	return l.Flush()
}

type immediate struct{ l *logLines }

func (w immediate) Write(p []byte) (int, error) {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	n, err := w.l.w.Write(p)
	if err == nil {
		err = w.l.w.Flush()
	}
	return n, err
}
