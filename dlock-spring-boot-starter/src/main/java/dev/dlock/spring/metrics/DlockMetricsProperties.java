package dev.dlock.spring.metrics;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code dlock.metrics.*} properties: how the auto-configured
 * {@link dev.dlock.micrometer.DlockMetrics} records into the application's {@code MeterRegistry}.
 */
@ConfigurationProperties(prefix = "dlock.metrics")
public class DlockMetricsProperties {

    /**
     * Whether to record dlock's meters in the application's MeterRegistry (when
     * dev.dlock:dlock-micrometer is on the class path and a MeterRegistry bean exists).
     */
    private boolean enabled = true;

    /**
     * Whether dlock's timers publish percentile histograms (the buckets Prometheus's
     * histogram_quantile needs), about 70 buckets per tag combination.
     */
    private boolean percentileHistograms;

    /**
     * @return the enabled property
     */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * @param enabled the enabled property
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * @return the percentile-histograms property
     */
    public boolean isPercentileHistograms() {
        return percentileHistograms;
    }

    /**
     * @param percentileHistograms the percentile-histograms property
     */
    public void setPercentileHistograms(boolean percentileHistograms) {
        this.percentileHistograms = percentileHistograms;
    }
}
