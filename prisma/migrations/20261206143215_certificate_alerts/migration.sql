-- AlterTable
ALTER TABLE "endpoint_alerts" ADD COLUMN     "cert_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "cert_subject" TEXT;

-- A destination's client certificate ending within 14 days (docs/alerts.md#certificates).
ALTER TABLE "endpoint_alerts" DROP CONSTRAINT "endpoint_alerts_reason_check";
ALTER TABLE "endpoint_alerts" ADD CONSTRAINT "endpoint_alerts_reason_check" CHECK ("reason" IN ('failing', 'success_rate', 'certificate'));
