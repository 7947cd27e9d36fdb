import HostedCore

extension DomainError {
    /// Every decode thread busy and the waiting line full (`DecodeQueue`): come back in a moment.
    static let decodesBusy = DomainError.unavailable(detail: "Too many photos are being processed; try again in a few seconds.",
                                                     code: .serverBusy, retryAfterSeconds: 2)
}
