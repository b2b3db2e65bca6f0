package models

import "context"

// CountByStatus counts the orders of each status, for the admin dashboard.
func (s *OrderStore) CountByStatus(ctx context.Context) (map[OrderStatus]int64, error) {
	var rows []struct {
		Status OrderStatus
		N      int64
	}
	err := s.db.WithContext(ctx).Model(&Order{}).Select("status, COUNT(*) AS n").Group("status").Scan(&rows).Error
	if err != nil {
		return nil, storeError(err, "")
	}
	out := make(map[OrderStatus]int64, len(OrderStatuses))
	for _, r := range rows {
		out[r.Status] = r.N
	}
	return out, nil
}
