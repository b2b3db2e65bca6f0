package models

import (
	"context"
	"math/rand/v2"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// SeedActor names the seed command in the status history.
const SeedActor = "seed"

// seedBatch rows go in one INSERT: few round trips, and well under PostgreSQL's 65,535 and
// SQLite's 32,766 bind parameters for the widest table (status_changes, 9 columns).
const seedBatch = 1000

// seedTxPets pets, with their orders, history and events, are written in one transaction: short
// enough (about 100 ms on SQLite) that the service's own writes, waiting for the database, get
// their turn between two of them.
const seedTxPets = 500

// seedPause is how long a seed of SQLite waits after each transaction at least: longer than the
// 100 ms SQLite's busy handler sleeps between two tries for the write lock, so a writer waiting
// for it gets it before the next transaction of the seed does. The seed waits as long as the
// transaction took when that was longer: on a busy machine, where a transaction takes longer
// and a waiting writer runs late for its tries, 110 ms left a service's write waiting past its
// 5 s deadline (a CI run of TestTheServiceKeepsAnsweringWhileASeedRuns).
const seedPause = 110 * time.Millisecond

// seedLockClass keys, with a hash of the schema's name, the PostgreSQL advisory lock that keeps
// two seed runs from topping up the same database at once (per schema, as the migration's).
const seedLockClass = 731_605

// SeedOptions says how much demo data the database should hold.
type SeedOptions struct {
	// Pets is how many pets the database holds afterwards, at least.
	Pets int
	// Orders is how many orders it holds afterwards, at least; new orders go only onto the
	// pets this run adds, one each, so at most that many are added.
	Orders int
	// Rand picks names, categories and dates; nil uses a random seed.
	Rand *rand.Rand
	// Progress, when set, is told after each transaction how many pets the run has added
	// and how many it set out to add.
	Progress func(added, total int)
}

// SeedResult says what a seed run added and what the database holds now.
type SeedResult struct {
	PetsAdded, OrdersAdded, ChangesAdded int
	Pets, Orders                         int64
}

// Seed tops the database up with demo data: pets with realistic names in every category, and
// orders in every status that went through the lifecycle's own rules (apply), so each pet's
// status agrees with its order and its history. A few pets without orders were sold at the
// counter (setByHand). It writes seedTxPets pets at a time, each with its orders, history and
// events in a transaction of its own, so the service keeps answering while it runs. The numbers
// are totals to reach: a second run with the same numbers adds nothing, and one after a failed
// run adds what is missing.
func Seed(ctx context.Context, db *gorm.DB, opt SeedOptions) (SeedResult, error) {
	db = db.WithContext(ctx)
	if db.Dialector.Name() != "postgres" {
		// SQLite has no lock across processes, but runs one write transaction at a time: each
		// counts what the database holds again, so two seeds at once still stop at the numbers.
		res, err := seed(ctx, db, opt, true)
		return res, storeError(err, "")
	}
	// One run at a time, which counts once: a count of each table in every transaction would
	// cost more than the inserts on a large database.
	var res SeedResult
	err := db.Connection(func(conn *gorm.DB) error {
		if err := conn.Exec("SELECT pg_advisory_lock(?, hashtext(current_schema()))", seedLockClass).Error; err != nil {
			return err
		}
		defer conn.WithContext(context.WithoutCancel(ctx)).Exec("SELECT pg_advisory_unlock(?, hashtext(current_schema()))", seedLockClass)
		var err error
		res, err = seed(ctx, conn.Session(&gorm.Session{}), opt, false) // each query from a clean statement
		if err != nil || res.PetsAdded == 0 {
			return err
		}
		// The planner's statistics of what the seed wrote, which autovacuum would gather only on
		// its next look, if it runs at all: until then PostgreSQL misjudges the lists' conditions
		// (see analyzeUnknown).
		return analyze(conn, seededTables...)
	})
	return res, storeError(err, "")
}

// seededTables are the tables a seed writes to.
var seededTables = []string{"pets", "orders", "status_changes", "events"}

// seed writes the batches of Seed, counting what the database holds first. On SQLite each
// transaction counts again, and the seed pauses after it (seedPause, or as long as it took).
func seed(ctx context.Context, db *gorm.DB, opt SeedOptions, sqlite bool) (SeedResult, error) {
	var res SeedResult
	rng := opt.Rand
	if rng == nil {
		rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) // #nosec G404 -- demo names and dates; nothing here needs to be unpredictable
	}
	var cats []Category
	if err := db.Order("id").Find(&cats).Error; err != nil {
		return res, err
	}
	count := func(tx *gorm.DB) error {
		if err := tx.Model(&Pet{}).Count(&res.Pets).Error; err != nil {
			return err
		}
		return tx.Model(&Order{}).Count(&res.Orders).Error
	}
	if err := count(db); err != nil {
		return res, err
	}
	total := max(0, opt.Pets-int(res.Pets))
	if len(cats) == 0 {
		return res, nil
	}
	for {
		done := false
		began := time.Now()
		err := db.Transaction(func(tx *gorm.DB) error {
			if sqlite {
				if err := count(tx); err != nil {
					return err
				}
			}
			missingPets := max(0, opt.Pets-int(res.Pets))
			missingOrders := min(max(0, opt.Orders-int(res.Orders)), missingPets)
			if missingPets == 0 {
				done = true
				return nil
			}
			// The orders still missing spread evenly over the pets still missing.
			pets := min(seedTxPets, missingPets)
			orders := min(missingOrders, (missingOrders*pets+missingPets-1)/missingPets)
			plan := planSeed(rng, cats, pets, orders, tx.NowFunc())
			if err := plan.insert(tx); err != nil {
				return err
			}
			res.PetsAdded += len(plan.pets)
			res.OrdersAdded += len(plan.orders)
			res.ChangesAdded += len(plan.changes)
			res.Pets += int64(len(plan.pets))
			res.Orders += int64(len(plan.orders))
			return nil
		})
		if err != nil || done {
			return res, err
		}
		if opt.Progress != nil {
			opt.Progress(res.PetsAdded, total)
		}
		if sqlite {
			select {
			case <-ctx.Done():
				return res, ctx.Err()
			case <-time.After(max(seedPause, time.Since(began))):
			}
		}
	}
}

// seedPlan is the demo data built in memory before any of it is written. The rows refer to
// each other by index until the inserts assign ids.
type seedPlan struct {
	pets    []Pet
	orders  []Order
	changes []StatusChange
	// orderPet[i] is the index in pets of orders[i]'s pet; changePet and changeOrder likewise
	// (changeOrder is -1 for a change made by hand).
	orderPet, changePet, changeOrder []int
	// events are the events of the changes, in the order they are recorded.
	events []seedEvent
}

// seedEvent is one event of the seed, before ids are known. A pet's creation carries no copies:
// the pet was then as it ends up unless it changed, with its creation's status and time.
type seedEvent struct {
	typ                     EventType
	pet, order              int // indexes in pets and orders; order -1 for a pet event
	petBefore, petAfter     *Pet
	orderBefore, orderAfter *Order
}

// seedOrderStatuses is the mix of order statuses, cycled so that even four orders cover them
// all: 20 % placed, 20 % approved, 40 % delivered, 20 % cancelled.
var seedOrderStatuses = []OrderStatus{OrderPlaced, OrderApproved, OrderDelivered, OrderCancelled, OrderDelivered}

// seedPaths are the actions that bring a new order to each status.
var seedPaths = map[OrderStatus][]Action{
	OrderPlaced:    {ActionPlace},
	OrderApproved:  {ActionPlace, ActionApprove},
	OrderDelivered: {ActionPlace, ActionApprove, ActionDeliver},
	OrderCancelled: {ActionPlace, ActionCancel},
}

func planSeed(rng *rand.Rand, cats []Category, nPets, nOrders int, now time.Time) *seedPlan {
	p := &seedPlan{pets: make([]Pet, nPets)}
	for i := range p.pets {
		cat := cats[rng.IntN(len(cats))]
		names := seedNames[cat.Name]
		if names == nil {
			names = seedNamesOther
		}
		created := now.Add(-time.Duration(rng.Int64N(int64(180 * 24 * time.Hour)))).Truncate(time.Microsecond)
		p.pets[i] = Pet{Name: names[rng.IntN(len(names))], CategoryID: cat.ID, Status: PetAvailable,
			CreatedAt: created, UpdatedAt: created}
	}
	// Words of their own generator, so that the draws above stay what they were before pets had
	// descriptions and tags.
	words := rand.New(rand.NewPCG(uint64(nPets), 27)) // #nosec G404 G115 -- demo data, not a secret; a count is never negative
	for i := range p.pets {
		p.pets[i].Description, p.pets[i].Tags = seedText(words, cats, p.pets[i].CategoryID)
	}
	for i := range p.pets {
		p.events = append(p.events, seedEvent{typ: EventPetCreated, pet: i, order: -1})
	}
	ordered := rng.Perm(nPets)
	for k, pi := range ordered[:nOrders] {
		p.addOrder(rng, pi, seedOrderStatuses[k%len(seedOrderStatuses)], now)
	}
	// One in ten of the other pets was sold at the counter, by hand.
	for _, pi := range ordered[nOrders:] {
		if rng.IntN(10) == 0 {
			pet := &p.pets[pi]
			was := *pet
			change, err := setByHand(pet, PetSold, nil, SeedActor, later(rng, pet.CreatedAt, now))
			if err != nil {
				panic(err) // setByHand refuses only a pet with a live order, and these have none
			}
			p.addChange(change, pi, -1)
			after := *pet
			p.events = append(p.events, seedEvent{typ: EventPetUpdated, pet: pi, order: -1, petBefore: &was, petAfter: &after})
		}
	}
	return p
}

func (p *seedPlan) addOrder(rng *rand.Rand, pi int, status OrderStatus, now time.Time) {
	pet := &p.pets[pi]
	o := Order{Quantity: 1}
	at := later(rng, pet.CreatedAt, now)
	o.CreatedAt = at
	if rng.IntN(5) < 3 {
		ship := at.Add(time.Duration(1+rng.IntN(14)) * 24 * time.Hour).Truncate(time.Hour)
		o.ShipDate = &ship
	}
	oi := len(p.orders)
	for _, a := range seedPaths[status] {
		wasOrder, wasPet := o, *pet
		change, err := apply(a, &o, pet, SeedActor, at)
		if err != nil {
			panic(err) // the paths follow the lifecycle from an available pet: a bug if refused
		}
		p.addChange(change, pi, oi)
		ev := seedEvent{typ: orderEvents[a], pet: pi, order: oi, orderAfter: copyOf(o)}
		if a != ActionPlace {
			ev.orderBefore = &wasOrder
		}
		p.events = append(p.events, ev)
		if wasPet.Status != pet.Status {
			p.events = append(p.events, seedEvent{typ: EventPetUpdated, pet: pi, order: -1, petBefore: &wasPet, petAfter: copyOf(*pet)})
		}
		at = later(rng, at, now)
	}
	p.orders = append(p.orders, o)
	p.orderPet = append(p.orderPet, pi)
}

func (p *seedPlan) addChange(c StatusChange, pi, oi int) {
	p.changes = append(p.changes, c)
	p.changePet = append(p.changePet, pi)
	p.changeOrder = append(p.changeOrder, oi)
}

// later is a moment up to three days after t, and never after now.
func later(rng *rand.Rand, t, now time.Time) time.Time {
	t = t.Add(time.Duration(rng.Int64N(int64(72 * time.Hour)))).Truncate(time.Microsecond)
	if t.After(now) {
		return now
	}
	return t
}

// insert writes the plan in batches, filling in the ids that link its rows.
func (p *seedPlan) insert(tx *gorm.DB) error {
	tx = tx.Omit(clause.Associations)
	if err := tx.CreateInBatches(&p.pets, seedBatch).Error; err != nil {
		return err
	}
	for i := range p.orders {
		p.orders[i].PetID = p.pets[p.orderPet[i]].ID
	}
	if len(p.orders) > 0 {
		if err := tx.CreateInBatches(&p.orders, seedBatch).Error; err != nil {
			return err
		}
	}
	for i := range p.changes {
		p.changes[i].PetID = p.pets[p.changePet[i]].ID
		if oi := p.changeOrder[i]; oi >= 0 {
			p.changes[i].OrderID = &p.orders[oi].ID
		}
	}
	if len(p.changes) > 0 {
		if err := tx.CreateInBatches(&p.changes, seedBatch).Error; err != nil {
			return err
		}
	}
	for start := 0; start < len(p.events); start += seedBatch {
		batch := p.events[start:min(start+seedBatch, len(p.events))]
		changes := make([]change, len(batch))
		for i, ev := range batch {
			c, err := p.eventChange(ev)
			if err != nil {
				return err
			}
			changes[i] = c
		}
		if err := recordEvents(tx, changes...); err != nil {
			return err
		}
	}
	return nil
}

// eventChange is the change a seed event records, with the ids the inserts assigned.
func (p *seedPlan) eventChange(ev seedEvent) (change, error) {
	pet := &p.pets[ev.pet]
	if ev.order >= 0 {
		id, petID := p.orders[ev.order].ID, pet.ID
		for _, o := range []*Order{ev.orderBefore, ev.orderAfter} {
			if o != nil {
				o.ID, o.PetID = id, petID
			}
		}
		return orderEvent(ev.typ, ev.orderBefore, ev.orderAfter)
	}
	if ev.petAfter == nil { // created
		created := *pet
		created.Status, created.UpdatedAt = PetAvailable, pet.CreatedAt
		return petEvent(ev.typ, nil, &created)
	}
	ev.petBefore.ID, ev.petAfter.ID = pet.ID, pet.ID
	return petEvent(ev.typ, ev.petBefore, ev.petAfter)
}

func copyOf[T any](v T) *T { return &v }

// seedKinds are kinds of animal of each seeded category, and what its young are called.
var seedKinds = map[string]struct {
	kinds []string
	young string
}{
	"Dogs":          {[]string{"Labrador", "Beagle", "Poodle", "Terrier", "Collie", "Spaniel"}, "puppy"},
	"Cats":          {[]string{"Siamese", "tabby", "Persian", "Maine Coon", "Bengal", "ragdoll"}, "kitten"},
	"Birds":         {[]string{"budgie", "cockatiel", "canary", "lovebird", "parrot", "finch"}, "chick"},
	"Fish":          {[]string{"goldfish", "betta", "guppy", "tetra", "angelfish", "koi"}, "fry"},
	"Reptiles":      {[]string{"gecko", "bearded dragon", "corn snake", "tortoise", "iguana", "chameleon"}, "hatchling"},
	"Small animals": {[]string{"rabbit", "hamster", "guinea pig", "ferret", "chinchilla", "rat"}, "baby"},
}

var (
	seedTempers = []string{"calm", "playful", "shy", "curious", "gentle", "lively", "friendly", "quiet"}
	seedLikes   = []string{"long walks", "naps in the sun", "its toys", "cuddles", "the garden", "company", "treats", "a quiet corner"}
	seedTags    = []string{"calm", "playful", "house-trained", "vaccinated", "good-with-kids", "indoor", "senior", "young", "rescue", "hypoallergenic"}
)

// seedText is a demo pet's description and tags: "A calm Labrador puppy who loves long walks."
func seedText(rng *rand.Rand, cats []Category, categoryID int64) (string, Tags) {
	kinds := seedKinds["Small animals"]
	for _, c := range cats {
		if k, ok := seedKinds[c.Name]; ok && c.ID == categoryID {
			kinds = k
		}
	}
	age := "adult"
	if rng.IntN(3) == 0 {
		age = kinds.young
	}
	temper := seedTempers[rng.IntN(len(seedTempers))]
	desc := "A " + temper + " " + kinds.kinds[rng.IntN(len(kinds.kinds))] + " " + age + " who loves " + seedLikes[rng.IntN(len(seedLikes))] + "."
	var tags Tags
	for _, i := range rng.Perm(len(seedTags))[:rng.IntN(4)] {
		tags = append(tags, seedTags[i])
	}
	slices.Sort(tags)
	return desc, tags
}

// seedNames are names people give animals of each seeded category.
var seedNames = map[string][]string{
	"Dogs": {"Max", "Bella", "Charlie", "Luna", "Cooper", "Daisy", "Buddy", "Rosie", "Rocky", "Molly",
		"Bear", "Sadie", "Duke", "Maggie", "Tucker", "Bailey", "Rex", "Lola", "Zeus", "Penny",
		"Biscuit", "Hazel", "Murphy", "Ruby", "Winston", "Stella", "Otis", "Roxy", "Finn", "Nala"},
	"Cats": {"Oliver", "Luna", "Milo", "Chloe", "Leo", "Lily", "Simba", "Nala", "Jasper", "Cleo",
		"Felix", "Misty", "Tigger", "Shadow", "Smokey", "Willow", "Oscar", "Pepper", "Mittens", "Ginger",
		"Salem", "Whiskers", "Pumpkin", "Mochi", "Loki", "Olive", "Zoë", "Figaro", "Socks", "Hazel"},
	"Birds": {"Kiwi", "Polly", "Sunny", "Tweety", "Mango", "Rio", "Pip", "Sky", "Blue", "Peaches",
		"Pickles", "Coco", "Echo", "Sunshine", "Charlie", "Piper", "Jasper", "Birdie", "Lemon", "Zazu",
		"Pistachio", "Robin", "Cricket", "Skittles", "Paco", "Feather", "Ziggy", "Bubbles", "Noodle", "Iggy"},
	"Fish": {"Nemo", "Dory", "Bubbles", "Goldie", "Finn", "Splash", "Gill", "Wanda", "Flounder", "Neptune",
		"Sushi", "Marlin", "Coral", "Squirt", "Jaws", "Ariel", "Guppy", "Fishbone", "Pearl", "Captain",
		"Blinky", "Sunny", "Wiggles", "Tango", "Moby", "Rainbow", "Sparkle", "Zippy", "Bloop", "Lucky"},
	"Reptiles": {"Spike", "Rango", "Yoshi", "Godzilla", "Iggy", "Leo", "Draco", "Ziggy", "Gecko", "Shelly",
		"Rex", "Sheldon", "Toothless", "Crush", "Slinky", "Noodle", "Kaa", "Monty", "Medusa", "Franklin",
		"Pascal", "Norbert", "Spot", "Echo", "Kiwi", "Tortuga", "Rocky", "Bowser", "Sunny", "Pebbles"},
	"Small animals": {"Hazel", "Peanut", "Nibbles", "Oreo", "Pip", "Thumper", "Clover", "Cinnamon", "Biscuit", "Hammy",
		"Pumpkin", "Marshmallow", "Fluffy", "Button", "Snowball", "Squeak", "Mocha", "Whiskers", "Bun", "Gizmo",
		"Pepper", "Daisy", "Cocoa", "Toffee", "Hopper", "Chewie", "Sprout", "Muffin", "Waffles", "Honey"},
}

// seedNamesOther serves categories staff added.
var seedNamesOther = []string{"Sam", "Alex", "Charlie", "Robin", "Jamie", "Sunny", "Lucky", "Pepper",
	"Ziggy", "Bean", "Scout", "Indy", "Juniper", "Maple", "Sage", "Sky"}
