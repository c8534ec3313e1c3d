-- A `once` discount covers a subscription's first paid period (issue #31 §1.7). For one still in
-- its trial that period starts at the trial's end, so its bound moves from the trial's end to the
-- end of the period after it (months keep the trial end's day, clamped in shorter months, as the
-- periods do). Subscriptions past their trial keep their bound: their first paid period is charged.
UPDATE "Subscription" s
SET "discountEndsAt" = (s."trialEndsAt" AT TIME ZONE 'UTC' + CASE s."recurringInterval"
    WHEN 'day' THEN make_interval(days => s."recurringIntervalCount")
    WHEN 'week' THEN make_interval(weeks => s."recurringIntervalCount")
    WHEN 'month' THEN make_interval(months => s."recurringIntervalCount")
    ELSE make_interval(years => s."recurringIntervalCount")
  END) AT TIME ZONE 'UTC'
FROM "Order" o JOIN "Discount" d ON d.id = o."discountId"
WHERE o."subscriptionId" = s.id AND o.number = s.number AND d.duration = 'once'
  AND s.status = 'trialing' AND s."discountEndsAt" = s."trialEndsAt";
