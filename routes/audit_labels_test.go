package routes

import "testing"

// The audit pages label a field by its name in words unless it has a label of its own, so a
// field added to an object reads well there without one.
func TestAuditFieldsAreLabelledInWords(t *testing.T) {
	for name, want := range map[string]string{
		"tags":               "Tags",
		"bannedUntil":        "Banned until",
		"mustChangePassword": "Must change password",
		"categoryId":         "Category",
		"url":                "URL",
	} {
		if got := fieldLabel(name); got != want {
			t.Errorf("the label of %s is %q, want %q", name, got, want)
		}
	}
}
