package app_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// parisServer is adminServer with the store in Paris (PETSTORE_TIMEZONE=Europe/Paris).
func parisServer(t *testing.T, store testenv.Store, opts ...apptest.Option) *apptest.Server {
	t.Helper()
	cfg := apptest.Config(t, store)
	cfg.WebhookAllowHTTP, cfg.WebhookAllowPrivate = true, true
	var err error
	if cfg.Timezone, err = time.LoadLocation("Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	s := apptest.New(t, cfg, opts...)
	s.CreateStaff(t, "ada", adminPassword, models.RoleAdmin)
	s.CreateStaff(t, "sam", staffPassword, models.RoleStaff)
	return s
}

func TestPagesAndCSVShowTimesInTheStoreTimeZoneAndSaySoOnce(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := parisServer(t, store)
		at := time.Date(2026, 11, 28, 12, 52, 0, 0, time.UTC) // 13:52 in Paris
		zoe := models.Pet{Name: "Zoë the Café Dog", CategoryID: 1, Status: models.PetAvailable, CreatedAt: at, UpdatedAt: at}
		if err := s.DB.Create(&zoe).Error; err != nil {
			t.Fatal(err)
		}
		b := s.NewBrowser(t)
		b.Login(t, "ada", adminPassword)

		list := b.Get(t, "/admin/pets")
		wantStatus(t, list, http.StatusOK)
		if got := list.TestID("time-zone"); got.Length() != 1 || strings.TrimSpace(got.Text()) != "Times in Europe/Paris" {
			t.Fatalf("the page says %d times %q about its time zone", got.Length(), got.Text())
		}
		if row := strings.Join(strings.Fields(list.TestID("pet-row").First().Text()), " "); !strings.Contains(row, "2026-11-28 13:52") || strings.Contains(row, "UTC") {
			t.Fatalf("Zoë's row shows %q, want her last change at 2026-11-28 13:52, Paris time", row)
		}
		pet := b.Get(t, "/admin/pets/"+itoa(zoe.ID))
		if !strings.Contains(pet.Doc.Find("dl").Text(), "2026-11-28 13:52") {
			t.Fatalf("Zoë's page shows %q", strings.Join(strings.Fields(pet.Doc.Find("dl").Text()), " "))
		}

		// The CSV's bytes: a byte-order mark, then UTF-8, and times a spreadsheet reads as dates.
		raw := b.Get(t, "/admin/pets?format=csv")
		if !bytes.HasPrefix(raw.Body, []byte{0xEF, 0xBB, 0xBF, 'i', 'd', ','}) {
			t.Fatalf("the export starts %q, want the UTF-8 byte-order mark and the header", raw.Body[:min(12, len(raw.Body))])
		}
		if !bytes.Contains(raw.Body, []byte("Zo\xc3\xab the Caf\xc3\xa9 Dog,Dogs,available,,,,2026-11-28 13:52:00,2026-11-28 13:52:00,")) {
			t.Fatalf("the export's row for Zoë is not in UTF-8 with Paris times:\n%s", raw.Body)
		}

		// The audit CSV says what changed as the page does.
		if res := patchPet(t, s, zoe.ID, `{"name":"Zoë Brown"}`); res.StatusCode != http.StatusOK {
			t.Fatalf("rename: %d %s", res.StatusCode, res.Body)
		}
		audit := readCSV(t, b, "/admin/audit?format=csv&object=pet&id="+itoa(zoe.ID), "audit")
		if strings.Join(audit[0], ",") != "id,time,who,actor,object,object id,object name,action,did,changes" || len(audit) != 2 {
			t.Fatalf("the audit export of Zoë: %q", audit)
		}
		if e := audit[1]; e[2] != "apptest (API key)" || e[8] != "changed" || e[9] != "Name: Zoë the Café Dog → Zoë Brown" {
			t.Fatalf("the rename reads %q, want who by name, changed, and Name: Zoë the Café Dog → Zoë Brown", e)
		}
		page := b.Get(t, "/admin/audit?object=pet&id="+itoa(zoe.ID))
		if got := strings.Join(strings.Fields(page.Text("audit-changes")), " "); got != "Name Zoë the Café Dog → changed to Zoë Brown" {
			t.Fatalf("the page shows the rename as %q", got)
		}

		// The audit log's day is the store's: 23:30 UTC on the 27th is 00:30 on the 28th in Paris.
		if err := s.DB.Model(&models.AuditEntry{}).Where("object_type = ? AND object_id = ?", models.ObjectPet, zoe.ID).
			Update("created_at", time.Date(2026, 11, 27, 23, 30, 0, 0, time.UTC)).Error; err != nil {
			t.Fatal(err)
		}
		for day, want := range map[string]int{"2026-11-28": 1, "2026-11-27": 0} {
			rows := readCSV(t, b, "/admin/audit?format=csv&object=pet&date="+day, "audit")
			if len(rows)-1 != want {
				t.Errorf("the audit log of %s (Paris) holds %d changes of pets, want %d: %q", day, len(rows)-1, want, rows)
			}
			if want == 1 && rows[1][1] != "2026-11-28 00:30:00" {
				t.Errorf("the change's time reads %q, want 2026-11-28 00:30:00", rows[1][1])
			}
		}
	})
}

func TestAnUnknownTimeZoneStopsTheServiceWithAClearMessage(t *testing.T) {
	t.Parallel()
	_, _, err := run(t, map[string]string{"PETSTORE_TIMEZONE": "Paris"}, "migrate")
	if err == nil || !strings.Contains(err.Error(), `PETSTORE_TIMEZONE: must be an IANA time zone name such as Europe/Paris or America/New_York, got "Paris"`) {
		t.Fatalf("PETSTORE_TIMEZONE=Paris: %v", err)
	}
	for _, zone := range []string{"Local", "../../etc/passwd"} {
		if _, _, err := run(t, map[string]string{"PETSTORE_TIMEZONE": zone}, "migrate"); err == nil || !strings.Contains(err.Error(), "PETSTORE_TIMEZONE") {
			t.Errorf("PETSTORE_TIMEZONE=%s: %v", zone, err)
		}
	}
}
