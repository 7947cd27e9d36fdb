/// Where a verification's photos were taken, by capture id: personal data the store keeps
/// sealed with the verification's other personal fields rather than in its steps.
extension Verification {
    public var captureLocations: [String: CaptureLocation] {
        get {
            var locations: [String: CaptureLocation] = [:]
            for step in steps {
                for capture in step.captures { if let location = capture.location { locations[capture.id] = location } }
            }
            return locations
        }
        set {
            for step in steps.indices {
                for capture in steps[step].captures.indices {
                    steps[step].captures[capture].location = newValue[steps[step].captures[capture].id]
                }
            }
        }
    }
}
