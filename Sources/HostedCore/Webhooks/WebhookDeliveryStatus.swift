/// Where one delivery attempt of a webhook message is: `pending` (due, or leased by a
/// dispatcher) → `succeeded` (a 2xx) or `failed` (anything else; the next attempt, if the
/// schedule has one, is a new `pending` row).
public enum WebhookDeliveryStatus: String, Sendable, CaseIterable {
    case pending, succeeded, failed
}
