package apptest

import (
	"net/http"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Samples are the metrics of one scrape, by family name.
type Samples map[string]*dto.MetricFamily

// Scrape reads baseURL's /metrics as Prometheus does, failing the test on anything else.
func Scrape(tb testing.TB, baseURL string) Samples {
	tb.Helper()
	res, err := http.Get(baseURL + "/metrics")
	if err != nil {
		tb.Fatalf("scrape %s/metrics: %v", baseURL, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		tb.Fatalf("scrape %s/metrics: status %d", baseURL, res.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		tb.Fatalf("scrape %s/metrics: not the Prometheus text format: %v", baseURL, err)
	}
	return families
}

// ScrapeMetrics scrapes the server's metrics listener.
func (s *Server) ScrapeMetrics(tb testing.TB) Samples {
	tb.Helper()
	return Scrape(tb, s.MetricsURL)
}

// Value sums the series of family name whose labels include the given name-value pairs: the
// count for a counter, the value for a gauge, the number of observations for a histogram.
// A family or series not (yet) exported counts 0.
func (s Samples) Value(name string, labels ...string) float64 {
	f := s[name]
	if f == nil {
		return 0
	}
	var sum float64
	for _, m := range f.GetMetric() {
		if !hasLabels(m, labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		case m.Untyped != nil:
			sum += m.Untyped.GetValue()
		}
	}
	return sum
}

// Has tells whether family name has a series with the given labels.
func (s Samples) Has(name string, labels ...string) bool {
	for _, m := range s[name].GetMetric() {
		if hasLabels(m, labels) {
			return true
		}
	}
	return false
}

func hasLabels(m *dto.Metric, pairs []string) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == pairs[i] && l.GetValue() == pairs[i+1] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}
