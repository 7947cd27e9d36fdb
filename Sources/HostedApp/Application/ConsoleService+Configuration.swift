import HostedCore
import HostedCrypto
import HostedStorage

extension ConsoleService {
    /// The service over `database`, with the configuration's secret key (the `hosted operators`
    /// commands).
    public static func open(_ configuration: Configuration, database: any Database,
                            clock: any WallClock = SystemWallClock(), random: any RandomSource = SecureRandom()) throws -> ConsoleService {
        ConsoleService(operators: OperatorStore(database: database), secretKey: try SecretKey.load(configuration, random: random),
                       publicURL: configuration.publicURL, clock: clock, random: random)
    }
}
