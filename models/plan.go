package models

import (
	"strconv"
	"strings"
)

// Plan names the rate limits an API key lives under.
type Plan string

// The plans of the spec.
const (
	PlanFree       Plan = "free"
	PlanPro        Plan = "pro"
	PlanBusiness   Plan = "business"
	PlanEnterprise Plan = "enterprise"
)

// Limits are how many requests a client may send per minute and per day.
type Limits struct {
	PerMinute int
	PerDay    int
}

// PlanInfo is one row of the plans table. A custom plan takes its limits from each key.
type PlanInfo struct {
	Plan   Plan
	Limits Limits
	Custom bool
}

// Plans is the plans table of the spec, smallest first.
var Plans = []PlanInfo{
	{Plan: PlanFree, Limits: Limits{PerMinute: 60, PerDay: 1_000}},
	{Plan: PlanPro, Limits: Limits{PerMinute: 300, PerDay: 10_000}},
	{Plan: PlanBusiness, Limits: Limits{PerMinute: 1_000, PerDay: 100_000}},
	{Plan: PlanEnterprise, Custom: true},
}

// AnonymousLimits apply, per client IP, to requests without a valid key: the Free plan's.
var AnonymousLimits = Plans[0].Limits

// MaxCustomLimit bounds an Enterprise key's custom limits, so no counter can overflow.
const MaxCustomLimit = 1_000_000_000

// ParsePlan checks a plan name given by a user; field names the input in the message.
func ParsePlan(field, s string) (Plan, error) {
	names := make([]string, len(Plans))
	for i, p := range Plans {
		if string(p.Plan) == s {
			return p.Plan, nil
		}
		names[i] = string(p.Plan)
	}
	return "", &Error{Code: EValidation, Field: field,
		Message: field + ": must be one of " + strings.Join(names, ", ") + "; got " + strconv.Quote(s)}
}

// planLimits checks a plan and its custom limits together: a custom plan needs both limits, the
// others take none. It returns the limits to store on the key (zero for a standard plan).
func planLimits(plan string, perMinute, perDay int) (Plan, Limits, error) {
	p, err := ParsePlan("plan", plan)
	if err != nil {
		return "", Limits{}, err
	}
	var errs fieldErrors
	custom := Limits{PerMinute: perMinute, PerDay: perDay}
	if p != PlanEnterprise {
		if perMinute != 0 {
			errs.add(FieldError("perMinute", "only enterprise keys have custom limits; the %s plan sets its own", p))
		}
		if perDay != 0 {
			errs.add(FieldError("perDay", "only enterprise keys have custom limits; the %s plan sets its own", p))
		}
		return p, Limits{}, errs.err()
	}
	for _, l := range []struct {
		field string
		n     int
	}{{"perMinute", perMinute}, {"perDay", perDay}} {
		switch {
		case l.n == 0: // none given
			errs.add(FieldError(l.field, "an enterprise key needs a limit of its own, from 1 to %s", thousands(MaxCustomLimit)))
		case l.n < 1 || l.n > MaxCustomLimit:
			errs.add(FieldError(l.field, "an enterprise key needs a limit from 1 to %s, got %d", thousands(MaxCustomLimit), l.n))
		}
	}
	if len(errs) == 0 && perDay < perMinute {
		errs.add(FieldError("perDay", "must be at least the limit per minute (%d), got %d", perMinute, perDay))
	}
	return p, custom, errs.err()
}

// thousands writes n with separators, as a limit reads in a message: 1,000,000,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
