package models

import "context"

// Holders returns, for each of the pets that has one, the order that decides its status (as
// HoldingOrder picks it: a live order, or the one that sold it), in one statement through the
// (pet_id, id) index: a table shows what holds each of its pets.
func (s *OrderStore) Holders(ctx context.Context, petIDs []int64) (map[int64]Order, error) {
	out := make(map[int64]Order, len(petIDs))
	if len(petIDs) == 0 {
		return out, nil
	}
	var orders []Order
	err := s.db.WithContext(ctx).Where("pet_id IN ? AND status IN ?", petIDs, ordersThatHoldAPet).Order("id").Find(&orders).Error
	if err != nil {
		return nil, storeError(err, "")
	}
	byPet := make(map[int64][]Order, len(orders))
	for _, o := range orders {
		byPet[o.PetID] = append(byPet[o.PetID], o)
	}
	for id, list := range byPet {
		if h := HoldingOrder(list); h != nil {
			out[id] = *h
		}
	}
	return out, nil
}
