package dev.baton.schemas.registry;

/**
 * An error answer of the Confluent Schema Registry REST API: the HTTP status and the API's
 * {@code error_code}, which Confluent's clients in every language branch on.
 */
final class RestApiError extends RuntimeException {

    static final int SUBJECT_NOT_FOUND = 40401;
    static final int VERSION_NOT_FOUND = 40402;
    static final int SCHEMA_NOT_FOUND = 40403;
    static final int INVALID_SCHEMA = 42201;
    static final int INVALID_VERSION = 42202;
    static final int INVALID_COMPATIBILITY_LEVEL = 42203;
    static final int STORE_ERROR = 50001;

    private final int status;
    private final int errorCode;

    RestApiError(int status, int errorCode, String message) {
        super(message);
        this.status = status;
        this.errorCode = errorCode;
    }

    static RestApiError notFound(int errorCode, String message) {
        return new RestApiError(404, errorCode, message);
    }

    static RestApiError unprocessable(int errorCode, String message) {
        return new RestApiError(422, errorCode, message);
    }

    int status() {
        return status;
    }

    int errorCode() {
        return errorCode;
    }
}
