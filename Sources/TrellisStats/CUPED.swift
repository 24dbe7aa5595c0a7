/// CUPED: regression adjustment by a pre-exposure covariate (Deng, Xu, Kohavi and Walker, "Improving
/// the Sensitivity of Online Controlled Experiments by Utilizing Pre-Experiment Data", WSDM 2013).
///
/// Each variant's mean Ȳ becomes Ȳ − θX̄, with one θ = Cov(Y, X)/Var(X) estimated from both
/// variants pooled, so that the adjustment subtracts the same thing from each and the difference
/// stays unbiased; the variance falls by the share of Y's variance the covariate explains.
enum CUPED {
    /// θ from the pooled statistics of control and treatment, as gbstats' `compute_theta`: 0 when
    /// the pooled main value or the pooled covariate has no variance.
    static func theta(
        control: (post: Sample, pre: Sample, sumProducts: Double),
        treatment: (post: Sample, pre: Sample, sumProducts: Double)
    ) -> Double {
        let post = control.post + treatment.post
        let pre = control.pre + treatment.pre
        if pre.variance == 0 || post.variance == 0 { return 0 }
        let covariance = VariantStatistic.covariance(post, pre, control.sumProducts + treatment.sumProducts)
        return covariance / pre.variance
    }

    /// The two variants' statistics as the tests take them: adjusted by the pooled θ, or, when θ is
    /// 0 (no variance to learn it from), the unadjusted statistics — gbstats' fallback.
    static func statistics(
        control: (post: Sample, pre: Sample, sumProducts: Double),
        treatment: (post: Sample, pre: Sample, sumProducts: Double)
    ) -> (control: VariantStatistic, treatment: VariantStatistic, theta: Double?) {
        let theta = theta(control: control, treatment: treatment)
        if theta == 0 { return (.sample(control.post), .sample(treatment.post), nil) }
        return (
            .adjusted(post: control.post, pre: control.pre, sumProducts: control.sumProducts, theta: theta),
            .adjusted(post: treatment.post, pre: treatment.pre, sumProducts: treatment.sumProducts, theta: theta),
            theta
        )
    }
}
