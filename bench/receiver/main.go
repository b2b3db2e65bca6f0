// Command receiver is the webhook receiver of bench/events.sh: it answers every POST with 204
// and, at GET /count, says how many deliveries it was sent.
package main

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"sync/atomic"
	"time"
)

func main() {
	addr := os.Getenv("RECEIVER_ADDR")
	if addr == "" {
		addr = "127.0.0.1:18095"
	}
	var n atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		n.Add(1)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /count", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, n.Load()) })
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Fatal(srv.ListenAndServe())
}
