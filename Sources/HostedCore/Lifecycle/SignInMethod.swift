/// How a user got into the journey.
public enum SignInMethod: String, Sendable {
    case handoff, sms, continuation
}
